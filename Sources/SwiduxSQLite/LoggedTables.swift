import GRDB

/// The registry of logged tables in the database file: table `swidux_logged_table`, one row
/// per table whose row changes are logged, with what the log's triggers need to know of it.
/// The change journal (a store following the file) and the sync outbox (a sync engine) each
/// know only part of it: the journal knows the position column, the sync engine knows the
/// table is synced. Each installer records what it knows here, and the triggers of a table
/// are made from the whole entry, whichever installer runs, so that neither undoes what the
/// other needs.
///
/// - `tbl`: the table's name.
/// - `id_col`: its id column.
/// - `position_col`: its position column; `NULL` while only a sync engine registered the
///   table (then an entry is placed only when the row is new or its id changed).
/// - `synced`: 1 once a sync engine registered the table (its changes go to the outbox).
/// - `applying`: 1 only inside a transaction in which a sync engine writes the table's rows
///   as the server has them (``applying(_:_:_:)``): those changes are not the device's own,
///   and must not be pushed back.
///
/// ```swift
/// let entry = try LoggedTables.register(
///     LoggedTables.Entry(table: "todo", idColumn: "id", positionColumn: "position"), in: db)
/// // entry.synced is true if a sync engine registered "todo" before.
/// ```
package enum LoggedTables {
    package static let table = "swidux_logged_table"

    /// What the registry holds of one logged table.
    package struct Entry: Sendable, Hashable {
        package var table: String
        package var idColumn: String
        /// `nil`: not known (no store following the file registered the table).
        package var positionColumn: String?
        package var synced: Bool

        package init(table: String, idColumn: String, positionColumn: String? = nil, synced: Bool = false) {
            self.table = table
            self.idColumn = idColumn
            self.positionColumn = positionColumn
            self.synced = synced
        }

        /// `self` completed by `other`, an installer's view of the same table: a position
        /// column it knows replaces none or an older one, and being synced is never undone by
        /// an installer that does not sync. The id column is the latest registered (both
        /// installers read it from the table's declaration, which a migration may change).
        func merged(with other: Entry) -> Entry {
            Entry(table: table, idColumn: other.idColumn,
                  positionColumn: other.positionColumn ?? positionColumn, synced: synced || other.synced)
        }
    }

    /// Creates the registry where missing.
    static func create(in db: Database) throws {
        try db.execute(sql: """
            CREATE TABLE IF NOT EXISTS \(table) (
                tbl TEXT PRIMARY KEY NOT NULL,
                id_col TEXT NOT NULL,
                position_col TEXT,
                synced INTEGER NOT NULL DEFAULT 0,
                applying INTEGER NOT NULL DEFAULT 0
            )
            """)
    }

    /// What a trigger's `WHEN` reads to learn whether `table`'s rows are being written from
    /// the server: 1 then, else 0 or `NULL` (not registered).
    package static func applyingMark(_ table: String) -> String {
        "SELECT applying FROM \(self.table) WHERE tbl = \(RowChangeTriggers.literal(table))"
    }

    /// Runs `body`, which writes rows of registered `table` as a sync engine's server has
    /// them, with the table's `applying` mark set. Inside a write transaction only: no other
    /// connection ever sees the mark (a failed `body` clears it too).
    ///
    /// ```swift
    /// try LoggedTables.applying("todo", db) { try db.execute(sql: upsert, arguments: row) }
    /// ```
    package static func applying<T>(_ name: String, _ db: Database, _ body: () throws -> T) throws -> T {
        let mark = try db.cachedStatement(sql: "UPDATE \(table) SET applying = ? WHERE tbl = ?")
        try mark.execute(arguments: [true, name])
        let result: T
        do {
            result = try body()
        } catch {
            try? mark.execute(arguments: [false, name])
            throw error
        }
        try mark.execute(arguments: [false, name])
        return result
    }

    /// Records what an installer knows of a table, merged with what the registry held
    /// (``Entry/merged(with:)``), and returns the whole entry and whether it changed (the
    /// table's triggers are then made again from it). Creates the registry where missing.
    @discardableResult
    package static func register(_ entry: Entry, in db: Database) throws -> (entry: Entry, changed: Bool) {
        try create(in: db)
        let stored = try self.entry(entry.table, in: db)
        let merged = stored?.merged(with: entry) ?? entry
        guard merged != stored else { return (merged, false) }
        try db.execute(sql: """
            INSERT INTO \(table) (tbl, id_col, position_col, synced) VALUES (?, ?, ?, ?)
                ON CONFLICT (tbl) DO UPDATE SET
                    id_col = excluded.id_col, position_col = excluded.position_col, synced = excluded.synced
            """, arguments: [merged.table, merged.idColumn, merged.positionColumn, merged.synced])
        return (merged, true)
    }

    /// The registry's entry of `name`, or `nil` (not registered, or no registry).
    package static func entry(_ name: String, in db: Database) throws -> Entry? {
        guard try db.tableExists(table) else { return nil }
        return try Row.fetchOne(db, sql: "SELECT tbl, id_col, position_col, synced FROM \(table) WHERE tbl = ?",
                                arguments: [name]).map(Self.entry)
    }

    /// Every registered table, by name.
    package static func all(in db: Database) throws -> [Entry] {
        guard try db.tableExists(table) else { return [] }
        return try Row.fetchAll(db, sql: "SELECT tbl, id_col, position_col, synced FROM \(table) ORDER BY tbl").map(Self.entry)
    }

    private static func entry(_ row: Row) -> Entry {
        Entry(table: row[0], idColumn: row[1], positionColumn: row[2], synced: row[3])
    }
}
