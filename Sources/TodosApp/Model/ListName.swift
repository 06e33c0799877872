import Foundation

/// The one normalisation of list names, applied on every path (creating, renaming,
/// looking up from the UI and the command line, and the database's unique key).
///
/// A name is cleaned (newlines and tabs become spaces, surrounding spaces go) and must
/// hold 1 to ``Limits/name`` characters; two names are the same list when their
/// ``key(_:)``s are equal (case-, width- and canonical-equivalence-insensitive).
public enum ListName {
    /// The name as stored and shown: `"  Home\n"` → `"Home"`.
    public static func clean(_ raw: String) -> String { Limits.clean(raw) }

    /// The cleaned name, or why it is refused (empty, over the limit).
    public static func validate(_ raw: String) -> Result<String, TodosError> {
        let name = clean(raw)
        if name.isEmpty { return .failure(TodosError("a list name can't be empty")) }
        if let excess = Limits.excess(name, max: Limits.name, what: "a list name") { return .failure(TodosError(excess)) }
        return .success(name)
    }

    /// The key two names share when they name the same list: `"Work"`, `" work "` and
    /// `"WORK"` → `"work"`. Stored in the `nameKey` column, which is unique.
    public static func key(_ raw: String) -> String {
        clean(raw).precomposedStringWithCanonicalMapping
            .folding(options: [.caseInsensitive, .widthInsensitive], locale: nil)
    }
}

extension String {
    /// "a title…" → "A title…" (error texts reused as status messages).
    var capitalizedFirst: String { prefix(1).uppercased() + dropFirst() }
}
