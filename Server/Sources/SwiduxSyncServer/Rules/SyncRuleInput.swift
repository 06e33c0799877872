import SwiduxSyncWire

/// What a rule (``SyncRule``) is given: one pushed change of a row, who pushed it, and a way
/// to read the space's other rows in the push's transaction.
///
/// ```swift
/// // An item may only move to a list the user can write (its `editors`, one subject a line).
/// rules["item"] = { input in
///     guard case .text(let listID)? = input.after?["listID"], input.before?["listID"] != input.after?["listID"] else { return .accept }
///     guard let list = try await input.row("list", id: .text(listID)) else { return .refuse(reason: "no list \(listID)") }
///     guard case .text(let editors)? = list["editors"], let user = input.user,
///           editors.split(separator: "\n").contains(Substring(user)) else {
///         return .refuse(reason: "\(input.user ?? "this token") may not write list \(listID)")
///     }
///     return .accept
/// }
/// ```
public struct SyncRuleInput: Sendable {
    /// The row's table.
    public var table: String
    /// The row's id.
    public var id: SyncValue
    /// The row as the server holds it before the change; `nil` when it has none (a new row,
    /// or one deleted: the server keeps a deleted row's id only).
    public var before: [String: SyncValue]?
    /// The row as the change would leave it; `nil` for a delete. For an update, the
    /// server's row with the pushed columns over it (the columns another device changed
    /// are kept: this is the row that would be written).
    public var after: [String: SyncValue]?
    /// The user who pushed: the JSON Web Token's subject; `nil` for an opaque token
    /// (`token create`), which writes its own space.
    public var user: String?
    /// The pusher's role in the space: a JWT user's personal space is theirs (`owner`); an
    /// opaque token is a `writer` of its space.
    public var role: SpaceRole
    /// The space's name (`user:<subject>` for a personal space).
    public var space: String
    /// Reads a row of the space (``row(_:id:)``).
    let reader: @Sendable (String, SyncValue) async throws -> [String: SyncValue]?

    /// An input, for testing a rule on its own.
    ///
    /// ```swift
    /// let input = SyncRuleInput(table: "item", id: .text("a"), before: nil, after: ["title": .text("")],
    ///                           user: "alice", role: .writer, space: "family")
    /// #expect(try await rule(input) == .refuse(reason: "a title has 1 to 500 characters"))
    /// ```
    public init(table: String, id: SyncValue, before: [String: SyncValue]?, after: [String: SyncValue]?, user: String?,
                role: SpaceRole, space: String,
                row: @escaping @Sendable (String, SyncValue) async throws -> [String: SyncValue]? = { _, _ in nil }) {
        self.table = table
        self.id = id
        self.before = before
        self.after = after
        self.user = user
        self.role = role
        self.space = space
        self.reader = row
    }

    /// Whether the change is a new row (the server has none live).
    ///
    /// ```swift
    /// if input.isInsert, input.role != .owner { return .refuse(reason: "only an owner adds rows") }
    /// ```
    public var isInsert: Bool { before == nil && after != nil }

    /// Whether the change deletes the row.
    ///
    /// ```swift
    /// if input.isDelete { return .refuse(reason: "rows of \(input.table) are never deleted") }
    /// ```
    public var isDelete: Bool { after == nil }

    /// The live row `id` of `table` in the same space, as this push's transaction sees it
    /// (the earlier mutations of the push are written; the other changes of the change's own
    /// mutation are not yet); `nil` when there is none or it is deleted.
    ///
    /// ```swift
    /// let list = try await input.row("list", id: .text(listID))
    /// ```
    public func row(_ table: String, id: SyncValue) async throws -> [String: SyncValue]? {
        try await reader(table, id)
    }
}
