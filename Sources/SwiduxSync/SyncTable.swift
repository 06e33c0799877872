import GRDB
import SwiduxSQLite

/// One table a ``SyncClient`` keeps in sync: its name and its primary-key column. Build it
/// from the `EntityTable` your app already declares.
///
/// ```swift
/// let client = try SyncClient(database: database, server: url, token: token,
///                             tables: [.table(AppDatabase.lists), .table(AppDatabase.items)])
/// ```
///
/// Every column of the table but the id travels as it is stored (the position column
/// included). A table must have a primary key on ``idColumn`` and, for foreign keys
/// between synced tables, a rowid (not `WITHOUT ROWID`).
public struct SyncTable: Hashable, Sendable {
    /// The table's name (also its name on the server).
    ///
    /// ```swift
    /// SyncTable.table(AppDatabase.items).name   // "todoItem"
    /// ```
    public let name: String
    /// The primary-key column.
    ///
    /// ```swift
    /// SyncTable(name: "todo", idColumn: "id").idColumn   // "id"
    /// ```
    public let idColumn: String

    /// A table by name and primary-key column.
    ///
    /// ```swift
    /// let table = SyncTable(name: "todo", idColumn: "id")
    /// ```
    public init(name: String, idColumn: String = "id") {
        self.name = name
        self.idColumn = idColumn
    }

    /// The table of an `EntityTable`.
    ///
    /// ```swift
    /// let items: SyncTable = .table(AppDatabase.items)
    /// ```
    public static func table<Entity>(_ table: EntityTable<Entity>) -> SyncTable {
        SyncTable(name: table.name, idColumn: table.idColumn)
    }
}
