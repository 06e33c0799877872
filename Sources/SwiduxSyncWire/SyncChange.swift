/// One row a client changed, as it pushes it: its table, its id, what happened to it and,
/// for a live row, every column's current value.
///
/// ```swift
/// let change = SyncChange(table: "todo", id: .text(id), kind: .update,
///                         columns: ["position": .integer(3), "data": .text(json)], baseVersion: 17)
/// ```
public struct SyncChange: Hashable, Sendable, Codable {
    /// What the client did to the row since it last pushed it.
    ///
    /// ```swift
    /// change.kind == .delete
    /// ```
    public enum Kind: String, Hashable, Sendable, Codable {
        /// The row was created (or deleted and created again) on the client: applied even
        /// over a tombstone — a re-inserted id comes back everywhere.
        case insert
        /// The row was changed on the client: its ``SyncChange/columns`` are merged into the
        /// server's row, column by column, the later push winning a column two clients
        /// changed since their base (a conflict is recorded for the replaced value) — except
        /// over a tombstone newer than ``SyncChange/baseVersion`` (delete wins over a stale
        /// update: refused).
        case update
        /// The row was deleted on the client: the server keeps a tombstone.
        case delete
    }

    /// The table (an entity table's name on the client).
    public var table: String
    /// The row's id (its primary-key column).
    public var id: SyncValue
    /// What happened to the row.
    public var kind: Kind
    /// For ``Kind/insert``, every column of the row but the id, by name; for
    /// ``Kind/update``, the columns the client changed since ``baseVersion`` (a client that
    /// does not know pushes every column): the server writes them over the row it holds and
    /// keeps every other column, including those the client's schema lacks.
    /// `nil` for ``Kind/delete``.
    public var columns: [String: SyncValue]?
    /// The server version of the row the client's change was made on (`nil`: the client
    /// never had a server version of it).
    public var baseVersion: Int64?

    /// A change.
    ///
    /// ```swift
    /// SyncChange(table: "todo", id: .text(id), kind: .delete)
    /// ```
    public init(table: String, id: SyncValue, kind: Kind, columns: [String: SyncValue]? = nil, baseVersion: Int64? = nil) {
        self.table = table
        self.id = id
        self.kind = kind
        self.columns = columns
        self.baseVersion = baseVersion
    }
}
