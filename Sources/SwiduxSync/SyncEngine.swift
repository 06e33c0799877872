import Foundation
import GRDB
import Swidux
import SwiduxSQLite
import SwiduxSyncWire

/// The client's local half, with no network: builds mutations from the outbox, applies
/// push answers and pulled pages — each step one local transaction. ``SyncClient`` drives
/// it over HTTP; tests drive it directly.
final class SyncEngine: Sendable {
    let writer: any DatabaseWriter
    /// The shared space this engine syncs (`nil`: the token's own space).
    let space: String?
    /// The names of this space's state tables.
    let schema: SyncSchema
    let tables: [SyncTable]
    /// Each table's place in ``tables`` (the first, for a name given twice).
    let tableIndexes: [String: Int]
    /// The largest encoded mutation (bytes of its changes); a larger outbox is cut in several.
    let mutationBytes: Int
    /// The largest encoded change that can be sent; a larger one is set aside (reported,
    /// never sent) until the row changes again.
    let maxChangeBytes: Int
    /// The database's `schema_version` when the synced tables were last checked (``checkSchema()``).
    let schemaVersion = LockedValue<Int64>(-1)
    /// Per table, what resolves its conflicts (``SyncClient/setResolver(for:_:)``).
    let resolvers = LockedValue<[String: SyncConflictResolver]>([:])
    /// Per table, what renames a row whose unique index clashes with another device's row
    /// (``SyncClient/setUniqueRenamer(for:_:)``).
    let renamers = LockedValue<[String: SyncUniqueRenamer]>([:])
    /// Deletes a table's outbox entries of many rows up to a sequence.
    let outboxDelete: MultiRowSQL

    init(writer: any DatabaseWriter, tables: [SyncTable], space: String? = nil, mutationBytes: Int = 1 << 20,
         maxChangeBytes: Int = SyncProtocol.maxBodyBytes - 64 * 1024) throws {
        self.writer = writer
        self.space = space
        schema = try space.map { space in try writer.write { try SyncSpaceRegistry.schema(of: space, $0) } } ?? .main
        self.maxChangeBytes = maxChangeBytes
        outboxDelete = MultiRowSQL("DELETE FROM \(schema.outbox) WHERE seq <= ? AND tbl = ? AND rid IN (", row: "?",
                                   suffix: ")", full: 128)
        self.tables = tables
        self.tableIndexes = Dictionary(tables.enumerated().map { ($1.name, $0) }, uniquingKeysWith: { first, _ in first })
        self.mutationBytes = mutationBytes
        for table in tables where !SyncProtocol.isValidTableName(table.name) {
            throw SyncError.local(SyncSetupError(message: "the table name \"\(table.name)\" cannot be synced (1 to 63 letters, digits and _, not starting with a digit or swidux_)"))
        }
        try writer.writeWithoutTransaction { db in try Self.enlargeCache(db) }
        let schema = self.schema
        let installed = try writer.read { db in try schema.isInstalled(in: db, tables: tables) }
        if !installed {
            try writer.write { db in try schema.install(in: db, tables: tables) }
        }
        let version = try writer.read { db in try Int64.fetchOne(db, sql: "PRAGMA schema_version") ?? 0 }
        schemaVersion.withLock { $0 = version }
    }

    /// The page cache a sync transaction wants: its rows land at random places of several
    /// B-trees (ids are UUIDs), and with SQLite's default 2 MiB the writer evicts and re-reads
    /// pages row after row (a first push of 100,000 rows read 1.5 GB from the file;
    /// with 32 MiB, 113 MiB). Memory is taken only as pages are read.
    static let cacheKiB = 32 * 1024

    /// Raises the writer connection's page cache to ``cacheKiB`` when it is smaller.
    static func enlargeCache(_ db: Database) throws {
        let current = try Int.fetchOne(db, sql: "PRAGMA cache_size") ?? 0
        let pageSize = try Int.fetchOne(db, sql: "PRAGMA page_size") ?? 4096
        // Negative: KiB; positive: pages.
        let kib = current < 0 ? -current : current * pageSize / 1024
        if kib < cacheKiB { try db.execute(sql: "PRAGMA cache_size = -\(cacheKiB)") }
    }

    /// The synced table named `name` (the first, for a name given twice).
    func table(named name: String) -> SyncTable? {
        tableIndexes[name].map { tables[$0] }
    }

    /// `key` as a member of a push's sets (``CompactRowKey``).
    func compactKey(_ key: RowKey) -> CompactRowKey {
        CompactRowKey(key, table: tableIndexes[key.table])
    }

    /// The client id stored in the file.
    func clientID() throws -> String {
        try writer.read { db in String.fromDatabaseValue(try schema.value("clientID", db)) ?? "" }
    }

    /// The pull cursor stored in the file.
    func cursor() throws -> Int64 {
        try writer.read { db in Int64.fromDatabaseValue(try schema.value("cursor", db)) ?? 0 }
    }

    /// Local changes not acknowledged yet: outbox entries plus pending mutations.
    func pendingCount() throws -> Int {
        try writer.read { db in
            try Int.fetchOne(db, sql: "SELECT (SELECT count(*) FROM \(schema.outbox)) + (SELECT count(*) FROM \(schema.pending))") ?? 0
        }
    }

    /// `true` when something waits to be pushed (cheap: polled every 50 ms by continuous sync).
    func hasPending() throws -> Bool {
        try writer.read { db in
            try SyncSchema.hasRows(schema.outbox, db) || SyncSchema.hasRows(schema.pending, db)
        }
    }

    /// Pulled rows waiting for a parent.
    func parkedCount() throws -> Int {
        try writer.read { db in try Int.fetchOne(db, sql: "SELECT count(*) FROM \(schema.parked)") ?? 0 }
    }

    // MARK: - Row access

    /// The row's columns but the id, or `nil` when there is no such row.
    func currentColumns(_ key: RowKey, table: SyncTable, _ db: Database) throws -> [String: SyncValue]? {
        let sql = "SELECT * FROM \(table.name.sqlIdentifier) WHERE \(table.idColumn.sqlIdentifier) = ?"
        guard let row = try Row.fetchOne(db.cachedStatement(sql: sql), arguments: [key.id]) else { return nil }
        var columns: [String: SyncValue] = [:]
        for (name, value) in row where name.lowercased() != table.idColumn.lowercased() {
            columns[name] = SyncValue(value)
        }
        return columns
    }

    /// Makes the outbox's index of rows if a first sync left it out (``SyncSchema/install(in:tables:)``):
    /// at the end of a push, so that the pull after it changes no schema.
    func ensureOutboxIndex() throws {
        guard try !writer.read({ try schema.hasOutboxIndex($0) }) else { return }
        try writer.write { try schema.ensureOutboxIndex($0) }
    }

    func hasOutboxEntry(_ key: RowKey, _ db: Database) throws -> Bool {
        try Bool.fetchOne(db.cachedStatement(sql: "SELECT 1 FROM \(schema.outbox) WHERE tbl = ? AND rid = ? LIMIT 1"),
                          arguments: [key.table, key.id]) ?? false
    }

    /// Whether a version past `cursor` is recorded. A pulled row's version is at most the
    /// cursor stored with it: only this client's acknowledged pushes (and refusals) record
    /// one past it, so a pulled row can be the echo of a version this client already has
    /// only then.
    func anyVersion(after cursor: Int64, _ db: Database) throws -> Bool {
        try Bool.fetchOne(db.cachedStatement(sql: "SELECT EXISTS (SELECT 1 FROM \(schema.version) WHERE version > ?)"),
                          arguments: [cursor]) ?? false
    }

    /// Whether any row has a recorded version.
    func anyVersion(_ db: Database) throws -> Bool {
        try SyncSchema.hasRows(schema.version, db)
    }

    func baseVersion(_ key: RowKey, _ db: Database) throws -> Int64? {
        try Int64.fetchOne(db.cachedStatement(sql: "SELECT version FROM \(schema.version) WHERE tbl = ? AND rid = ?"),
                           arguments: [key.table, key.id])
    }
}
