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
    /// The column that names the shared space each row belongs to, or `nil` when every row
    /// belongs to the token's own space.
    ///
    /// A row whose column is `NULL` belongs to the token's own space (a JWT user's personal
    /// space); a row whose column holds a space's name is pushed to that space, by the
    /// ``SyncClient`` made for it (``SyncSpaces`` makes one per space of the user). Setting the
    /// column moves the row: it is deleted from the space it was in and inserted, whole, in the
    /// new one. The column travels like any other, so every member's device stores the same
    /// name. A child row (one with a foreign key to a synced table) must name the same space as
    /// its parent: the other members receive only the rows of the spaces they belong to.
    ///
    /// ```swift
    /// let lists = SyncTable(name: "list", spaceColumn: "space")
    /// ```
    public let spaceColumn: String?

    /// A table by name and primary-key column, and the column naming each row's space, if any.
    ///
    /// ```swift
    /// let table = SyncTable(name: "todo", idColumn: "id")
    /// let shared = SyncTable(name: "todo", idColumn: "id", spaceColumn: "space")
    /// ```
    public init(name: String, idColumn: String = "id", spaceColumn: String? = nil) {
        self.name = name
        self.idColumn = idColumn
        self.spaceColumn = spaceColumn
    }

    /// The table of an `EntityTable`, its rows' space named by `spaceColumn` if given.
    ///
    /// ```swift
    /// let items: SyncTable = .table(AppDatabase.items)
    /// let lists: SyncTable = .table(AppDatabase.lists, spaceColumn: "space")
    /// ```
    public static func table<Entity>(_ table: EntityTable<Entity>, spaceColumn: String? = nil) -> SyncTable {
        SyncTable(name: table.name, idColumn: table.idColumn, spaceColumn: spaceColumn)
    }
}
