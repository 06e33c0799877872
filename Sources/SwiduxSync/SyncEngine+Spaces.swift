import GRDB

/// Which rows are this engine's space's: a table with a space column (``SyncTable/spaceColumn``)
/// holds rows of several spaces, each pushed by its own space's engine.
extension SyncEngine {
    /// Whether the row `key` exists and names this engine's space (`NULL`: the token's own; a
    /// table without a space column has rows of the token's own space only).
    func isHere(_ key: RowKey, table: SyncTable, _ db: Database) throws -> Bool {
        guard let column = table.spaceColumn else { return space == nil }
        let sql = "SELECT \(column.sqlIdentifier) FROM \(table.name.sqlIdentifier) WHERE \(table.idColumn.sqlIdentifier) = ?"
        guard let row = try Row.fetchOne(db.cachedStatement(sql: sql), arguments: [key.id]) else { return false }
        return row[0] as String? == space
    }

    /// Whether a pulled deletion of `key` is to be applied here: not when the row now names
    /// another space (it moved there, and that space's rows have it).
    func appliesDeletion(of key: RowKey, table: SyncTable, _ db: Database) throws -> Bool {
        guard let column = table.spaceColumn else { return true }
        let sql = "SELECT \(column.sqlIdentifier) FROM \(table.name.sqlIdentifier) WHERE \(table.idColumn.sqlIdentifier) = ?"
        guard let row = try Row.fetchOne(db.cachedStatement(sql: sql), arguments: [key.id]) else { return true }
        return row[0] as String? == space
    }

    /// Whether the file holds the row `key`, in any space.
    func holds(_ key: RowKey, table: SyncTable, _ db: Database) throws -> Bool {
        let sql = "SELECT 1 FROM \(table.name.sqlIdentifier) WHERE \(table.idColumn.sqlIdentifier) = ?"
        return try Bool.fetchOne(db.cachedStatement(sql: sql), arguments: [key.id]) ?? false
    }

    /// Forgets this space's version of `key`: the row left the space (its tombstone there is
    /// final), and a move back is pushed as an insertion.
    func forgetVersion(of key: RowKey, _ db: Database) throws {
        try db.cachedStatement(sql: "DELETE FROM \(schema.version) WHERE tbl = ? AND rid = ?").execute(arguments: [key.table, key.id])
    }
}
