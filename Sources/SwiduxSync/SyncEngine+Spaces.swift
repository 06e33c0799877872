import GRDB

/// Which rows are this engine's space's: a table with a space column (``SyncTable/spaceColumn``)
/// holds rows of several spaces, each pushed by its own space's engine.
extension SyncEngine {
    /// Whether the row `key` exists and names this engine's space (`NULL`: the token's own; a
    /// table without a space column has rows of the token's own space only).
    func isHere(_ key: RowKey, table: SyncTable, _ db: Database) throws -> Bool {
        guard table.spaceColumn != nil else { return space == nil }
        guard case .named(let named) = try place(of: key, table: table, db) else { return false }
        return named == space
    }

    /// Whether a pulled deletion of `key` is to be applied here: not when the row now names
    /// another space (it moved there, and that space's rows have it).
    func appliesDeletion(of key: RowKey, table: SyncTable, _ db: Database) throws -> Bool {
        guard case .named(let named) = try place(of: key, table: table, db) else { return true }
        return named == space
    }

    /// Where the row `key` is, as its space column says.
    enum RowPlace: Equatable {
        /// The file does not hold the row (or its table has no space column).
        case absent
        /// The space the row names: `nil` for the token's own.
        case named(String?)
    }

    /// The space the row `key` names, read from its table's space column: the one statement
    /// every question of this file about a row's space asks.
    func place(of key: RowKey, table: SyncTable, _ db: Database) throws -> RowPlace {
        guard let column = table.spaceColumn else { return .absent }
        let sql = "SELECT \(column.sqlIdentifier) FROM \(table.name.sqlIdentifier) WHERE \(table.idColumn.sqlIdentifier) = ?"
        guard let row = try Row.fetchOne(db.cachedStatement(sql: sql), arguments: [key.id]) else { return .absent }
        return .named(row[0])
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

    /// The outboxes of the file's other spaces, each with its last sequence: a row this engine
    /// writes as the server has it is fed to those of the engines that know it too (a row
    /// that moved between spaces), whose entries of it are then removed like this engine's own.
    func otherOutboxes(_ db: Database) throws -> [(outbox: String, mark: Int64)] {
        let schemas = try SyncSpaceRegistry.schemas(db) + [.main]
        return try schemas.filter { $0.outbox != schema.outbox }.compactMap { other in
            try db.tableExists(other.outbox) ? (other.outbox, try other.lastOutboxSequence(db)) : nil
        }
    }

    /// Whether the row `key` is here in another space, whose engine has a version of it
    /// newer than `version`: a pulled version of this space older than the row's move out of
    /// it (the other space's server had the row first), which must not take it back.
    func isNewerElsewhere(_ key: RowKey, table: SyncTable, than version: Int64, _ db: Database) throws -> Bool {
        guard case .named(let named) = try place(of: key, table: table, db), named != space else { return false }
        guard let other = try Self.schema(named, db), try db.tableExists(other.version) else { return false }
        let known = try Int64.fetchOne(db.cachedStatement(sql: "SELECT version FROM \(other.version) WHERE tbl = ? AND rid = ?"),
                                       arguments: [key.table, key.id])
        return (known ?? 0) > version
    }

    /// After this space acknowledged a version of the row `key`: when the row moved to another
    /// space while that version was in flight, that space's engine pushes it again (whole), so
    /// that its version there is newer than this one (``isNewerElsewhere(_:table:than:_:)``:
    /// other devices keep the row where it is now).
    func requeueIfMovedAway(_ key: RowKey, table: SyncTable, _ db: Database) throws {
        guard case .named(let named) = try place(of: key, table: table, db),
              named != space, let other = try Self.schema(named, db), try db.tableExists(other.outbox) else { return }
        try db.execute(sql: "INSERT INTO \(other.outbox) (tbl, rid, op) VALUES (?, ?, 'U')", arguments: [key.table, key.id])
    }

    /// The state tables' names of the space `name` (`nil`: the token's own), `nil` when the
    /// file never synced it.
    static func schema(_ name: String?, _ db: Database) throws -> SyncSchema? {
        guard let name else { return .main }
        return try SyncSpaceRegistry.recordedSchema(of: name, db)
    }
}
