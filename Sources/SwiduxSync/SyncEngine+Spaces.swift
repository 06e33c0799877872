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
}
