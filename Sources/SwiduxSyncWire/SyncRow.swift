/// A row as the server holds it: the latest version of one id of one table, live or a
/// tombstone.
///
/// ```swift
/// for row in response.rows where row.deleted { print("\(row.table) \(row.id.key) was deleted") }
/// ```
public struct SyncRow: Hashable, Sendable, Codable {
    /// The table.
    public var table: String
    /// The row's id.
    public var id: SyncValue
    /// The server version of this state of the row: from one sequence, increasing in the
    /// order the server applied changes.
    public var version: Int64
    /// `true` for a tombstone (the row was deleted); ``columns`` is then `nil`.
    public var deleted: Bool
    /// Every column but the id, for a live row.
    public var columns: [String: SyncValue]?

    /// A row.
    ///
    /// ```swift
    /// SyncRow(table: "todo", id: .text(id), version: 18, deleted: true)
    /// ```
    public init(table: String, id: SyncValue, version: Int64, deleted: Bool, columns: [String: SyncValue]? = nil) {
        self.table = table
        self.id = id
        self.version = version
        self.deleted = deleted
        self.columns = columns
    }
}
