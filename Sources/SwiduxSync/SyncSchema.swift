import Foundation
import GRDB

/// The client's tables in the app's database file (created on first use, idempotent):
///
/// - `swidux_sync_outbox(seq, tbl, rid, op)`: one entry per changed row of a synced table,
///   written by AFTER INSERT/UPDATE/DELETE triggers in the transaction of the change —
///   whoever made it (a Swidux flush, plain SQL, a cascade), while sync runs or not.
///   `op` is `I`, `U` or `D`.
/// - `swidux_sync_state(key, value)`: `clientID`, `cursor`, `nextMutation`.
/// - `swidux_sync_tables(tbl)`: the tables whose existing rows were queued once (first
///   sync of a file: every row becomes an insert).
/// - `swidux_sync_version(tbl, rid, version)`: the server version each row is based on.
/// - `swidux_sync_pending(id, payload, through_seq)`: a mutation's exact bytes, stored
///   before sending, resent as they are until acknowledged.
/// - `swidux_sync_parked(tbl, rid, version, payload)`: pulled rows waiting for a parent.
/// - `swidux_sync_set_aside(tbl, rid, bytes)`: rows whose change is too large to send
///   (reported until the row changes again and is acknowledged).
///
/// `swidux_sync_state` also holds `scope` (the server's `PushResponse.scope`, of SwiduxSyncWire:
/// the cursor, versions and client id belong to; absent before the first answer), and, only
/// inside a transaction applying a pulled page, `applying`: the table whose rows the current
/// statement writes from the server (``applying(_:_:_:)``), for which the insert and update
/// triggers write no outbox entry.
enum SyncSchema {
    static let outbox = "swidux_sync_outbox"
    static let state = "swidux_sync_state"
    static let knownTables = "swidux_sync_tables"
    static let version = "swidux_sync_version"
    static let pending = "swidux_sync_pending"
    static let parked = "swidux_sync_parked"
    static let setAside = "swidux_sync_set_aside"

    /// The outbox's index of rows (their entries, by table and id).
    private static let outboxIndexName = "\(outbox)_key"
    private static let outboxIndex = "CREATE INDEX IF NOT EXISTS \(outboxIndexName) ON \(outbox) (tbl, rid)"

    /// Creates what is missing: tables, triggers; queues the existing rows of a table
    /// synced for the first time — in the caller's transaction.
    static func install(in db: Database, tables: [SyncTable]) throws {
        try db.execute(sql: """
            CREATE TABLE IF NOT EXISTS \(outbox) (
                seq INTEGER PRIMARY KEY AUTOINCREMENT, tbl TEXT NOT NULL, rid NOT NULL, op TEXT NOT NULL);
            \(outboxIndex);
            CREATE TABLE IF NOT EXISTS \(state) (key TEXT PRIMARY KEY NOT NULL, value);
            CREATE TABLE IF NOT EXISTS \(knownTables) (tbl TEXT PRIMARY KEY NOT NULL);
            CREATE TABLE IF NOT EXISTS \(version) (
                tbl TEXT NOT NULL, rid NOT NULL, version INTEGER NOT NULL, PRIMARY KEY (tbl, rid)) WITHOUT ROWID;
            CREATE TABLE IF NOT EXISTS \(pending) (
                id INTEGER PRIMARY KEY, payload BLOB NOT NULL, through_seq INTEGER NOT NULL);
            CREATE TABLE IF NOT EXISTS \(parked) (
                tbl TEXT NOT NULL, rid NOT NULL, version INTEGER NOT NULL, payload BLOB NOT NULL, PRIMARY KEY (tbl, rid));
            CREATE TABLE IF NOT EXISTS \(setAside) (
                tbl TEXT NOT NULL, rid NOT NULL, bytes INTEGER NOT NULL, PRIMARY KEY (tbl, rid));
            INSERT OR IGNORE INTO \(state) (key, value) VALUES ('cursor', 0), ('nextMutation', 1);
            """)
        try db.execute(sql: "INSERT OR IGNORE INTO \(state) (key, value) VALUES ('clientID', ?)",
                       arguments: [UUID().uuidString.lowercased()])
        // A first sync of a table queues every row it holds, without the outbox's index of
        // rows: ``ensureOutboxIndex(_:)`` makes it, sorted once, when the push ends or a
        // look-up of a row's entries needs it first. A first push needs none, and deletes the
        // entries it pushed without updating the index a row at a time in the ids' order
        // (a first push's 100,000 queued rows). Only when there are rows to queue:
        // making the index is a schema change, which makes stores following the file read
        // it whole.
        var known = Set(try String.fetchAll(db, sql: "SELECT tbl FROM \(knownTables)"))
        if try tables.contains(where: { table in
            try !known.contains(table.name) && db.tableExists(table.name) && hasRows(table.name.quotedDatabaseIdentifier, db)
        }) {
            try db.execute(sql: "DROP INDEX IF EXISTS \(outboxIndexName)")
        }
        for table in tables {
            guard try db.tableExists(table.name) else {
                throw SyncError.local(SyncSetupError(message: "the synced table \"\(table.name)\" does not exist in the database"))
            }
            let quoted = table.name.quotedDatabaseIdentifier
            let literal = "'" + table.name.replacingOccurrences(of: "'", with: "''") + "'"
            let id = table.idColumn.quotedDatabaseIdentifier
            let prefix = "swidux_sync_" + table.name
            // Triggers made before the `applying` condition: made again.
            for suffix in ["_insert", "_update"] {
                if let sql = try String.fetchOne(db, sql: "SELECT sql FROM sqlite_master WHERE type = 'trigger' AND name = ?",
                                                 arguments: [prefix + suffix]), !sql.contains(applyingCondition) {
                    try db.execute(sql: "DROP TRIGGER \((prefix + suffix).quotedDatabaseIdentifier)")
                }
            }
            let unlessApplying = "WHEN (\(applyingCondition)) IS NOT \(literal)"
            try db.execute(sql: """
                CREATE TRIGGER IF NOT EXISTS \((prefix + "_insert").quotedDatabaseIdentifier) AFTER INSERT ON \(quoted) \(unlessApplying)
                BEGIN
                    INSERT INTO \(outbox) (tbl, rid, op) VALUES (\(literal), NEW.\(id), 'I');
                END;
                CREATE TRIGGER IF NOT EXISTS \((prefix + "_update").quotedDatabaseIdentifier) AFTER UPDATE ON \(quoted) \(unlessApplying)
                BEGIN
                    INSERT INTO \(outbox) (tbl, rid, op) SELECT \(literal), OLD.\(id), 'D' WHERE OLD.\(id) IS NOT NEW.\(id);
                    INSERT INTO \(outbox) (tbl, rid, op)
                        VALUES (\(literal), NEW.\(id), CASE WHEN OLD.\(id) IS NOT NEW.\(id) THEN 'I' ELSE 'U' END);
                END;
                CREATE TRIGGER IF NOT EXISTS \((prefix + "_delete").quotedDatabaseIdentifier) AFTER DELETE ON \(quoted)
                BEGIN
                    INSERT INTO \(outbox) (tbl, rid, op) VALUES (\(literal), OLD.\(id), 'D');
                END;
                """)
            if known.insert(table.name).inserted {
                // First sync of this table in this file: every existing row is an insert.
                try db.execute(sql: "INSERT INTO \(outbox) (tbl, rid, op) SELECT ?, \(id), 'I' FROM \(quoted) ORDER BY rowid",
                               arguments: [table.name])
                try db.execute(sql: "INSERT INTO \(knownTables) (tbl) VALUES (?)", arguments: [table.name])
            }
        }
    }

    /// Makes the outbox's index of rows when it is missing (``install(in:tables:)`` leaves
    /// it out after queueing a table's rows). Called at the start of a transaction that
    /// looks entries up by row, before any statement reads the outbox: without the index,
    /// each look-up would read the whole outbox.
    static func ensureOutboxIndex(_ db: Database) throws {
        if try !hasOutboxIndex(db) { try db.execute(sql: outboxIndex) }
    }

    static func hasOutboxIndex(_ db: Database) throws -> Bool {
        try Bool.fetchOne(db.cachedStatement(sql: "SELECT EXISTS (SELECT 1 FROM sqlite_master WHERE type = 'index' AND name = '\(outboxIndexName)')")) ?? false
    }

    /// What the insert and update triggers read: the table being written from the server.
    static let applyingCondition = "SELECT value FROM \(state) WHERE key = 'applying'"

    /// Runs `body`, which writes rows of `table` as the server has them and nothing else
    /// (pulled live rows: an upsert neither deletes nor cascades), without outbox entries for
    /// them (a first pull wrote an entry for every row, then deleted it as an echo).
    /// Inside a write transaction only: no other connection ever sees the mark. (A trigger of
    /// the app's own that writes other rows of `table` while `body` runs would not queue them
    /// either; triggers on other tables are not affected.)
    static func applying<T>(_ table: String, _ db: Database, _ body: () throws -> T) throws -> T {
        try setValue("applying", table, db)
        let result: T
        do {
            result = try body()
        } catch {
            try? db.execute(sql: "DELETE FROM \(state) WHERE key = 'applying'")
            throw error
        }
        try db.execute(sql: "DELETE FROM \(state) WHERE key = 'applying'")
        return result
    }

    /// `true` when the schema and the triggers of `tables` exist (nothing to write).
    static func isInstalled(in db: Database, tables: [SyncTable]) throws -> Bool {
        guard try db.tableExists(parked), try db.tableExists(knownTables), try db.tableExists(setAside) else { return false }
        for table in tables {
            // The insert and update triggers with their `applying` condition.
            let names = ["_insert", "_update", "_delete"].map { "swidux_sync_" + table.name + $0 }
            let triggers = try Int.fetchOne(db, sql: """
                SELECT count(*) FROM sqlite_master WHERE type = 'trigger' AND name IN (?, ?, ?)
                    AND (name = ? OR instr(sql, ?) > 0)
                """, arguments: StatementArguments(names + [names[2], applyingCondition])) ?? 0
            let known = try Bool.fetchOne(db, sql: "SELECT 1 FROM \(knownTables) WHERE tbl = ?", arguments: [table.name]) ?? false
            if triggers != 3 || !known { return false }
        }
        return true
    }

    static func value(_ key: String, _ db: Database) throws -> DatabaseValue {
        try DatabaseValue.fetchOne(db, sql: "SELECT value FROM \(state) WHERE key = ?", arguments: [key]) ?? .null
    }

    static func setValue(_ key: String, _ value: some DatabaseValueConvertible, _ db: Database) throws {
        try db.execute(sql: "INSERT OR REPLACE INTO \(state) (key, value) VALUES (?, ?)", arguments: [key, value])
    }

    /// Whether `table` (one of these tables, or a quoted name) holds any row.
    static func hasRows(_ table: String, _ db: Database) throws -> Bool {
        try Bool.fetchOne(db.cachedStatement(sql: "SELECT EXISTS (SELECT 1 FROM \(table))")) ?? false
    }

    /// The last outbox sequence ever written (0 when none).
    static func lastOutboxSequence(_ db: Database) throws -> Int64 {
        try Int64.fetchOne(db.cachedStatement(sql: "SELECT seq FROM sqlite_sequence WHERE name = '\(outbox)'")) ?? 0
    }
}

/// A synced table that cannot be used as it is.
struct SyncSetupError: Error, CustomStringConvertible {
    let message: String
    var description: String { message }
}
