import SwiduxSyncWire

/// What a rule (``SyncRule``) decides about a pushed change.
///
/// ```swift
/// rules["item"] = { input in
///     guard case .text(let title)? = input.after?["title"] else { return .accept }
///     if title.isEmpty { return .refuse(reason: "a title is required") }
///     if title != title.trimmingCharacters(in: .whitespaces) {
///         var row = input.after ?? [:]
///         row["title"] = .text(title.trimmingCharacters(in: .whitespaces))
///         return .rewrite(row)
///     }
///     return .accept
/// }
/// ```
public enum SyncRuleDecision: Hashable, Sendable {
    /// The change is written as pushed.
    case accept
    /// The change is not written; the device gets the reason and the server's row back.
    case refuse(reason: String)
    /// The row is written with these columns instead (the whole row: a column left out is
    /// not kept), and the device takes them. For a delete, the row stays, with these columns.
    case rewrite([String: SyncValue])
}
