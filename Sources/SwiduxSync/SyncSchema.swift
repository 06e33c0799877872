import Foundation
import GRDB
import SwiduxSQLite

/// The client's tables in the app's database file (created on first use, idempotent):
///
/// - `swidux_sync_outbox(seq, tbl, rid, op, cols)`: one entry per changed row of a synced
///   table, fed from SwiduxSQLite's change journal (whose triggers on the table log every
///   change in the transaction that made it, whoever made it: a Swidux flush, plain SQL, a
///   cascade; while sync runs or not) by one trigger on the journal (``feed``).
///   `op` is `I`, `U` or `D`; `cols`, for `U`, the names of the columns the update changed
///   (each after a U+001F; the update trigger compares `OLD` and `NEW`), so that a push sends
///   only those. `NULL` (an entry written before the column existed, or after the
///   table's columns changed): the whole row.
/// - `swidux_sync_conflict(id, tbl, rid, col, kept, replaced, version, replaced_version,
///   kept_by, at, kind, reason)`: this client's values that a later push of another client replaced
///   without having seen them (``SyncConflict``), and (`kind` `renamed`, `id` below zero)
///   the rows this client renamed because a unique index clashed with another device's row
///   (``UniqueClashes``), and (`kind` `refused`, `id` below zero) its changes a rule of the
///   server refused, with the `reason`, until dismissed.
/// - `swidux_sync_state(key, value)`: `clientID`, `cursor`, `nextMutation`.
/// - `swidux_sync_tables(tbl)`: the tables whose existing rows were queued once (first
///   sync of a file: every row becomes an insert).
/// - every synced table is also registered as synced in SwiduxSQLite's registry of logged
///   tables (`LoggedTables`), next to what a following store registered of it.
/// - `swidux_sync_version(tbl, rid, version)`: the server version each row is based on.
/// - `swidux_sync_pending(id, payload, through_seq)`: a mutation's exact bytes, stored
///   before sending, resent as they are until acknowledged.
/// - `swidux_sync_parked(tbl, rid, version, payload)`: pulled rows waiting for a parent.
/// - `swidux_sync_set_aside(tbl, rid, bytes)`: rows whose change is too large to send
///   (reported until the row changes again and is acknowledged).
///
/// `swidux_sync_state` also holds `renames` (how many renames and refusals were listed: the next one's
/// `id` is minus one more), `renamesAnnounced` (how many of them were reported), `merges`
/// (1 once the server said it merges updates by column: updates then push only their
/// changed columns), `conflictCursor` (the last conflict
/// id fetched), per synced table `columns:<table>` (its columns when they were last synced:
/// a column added since is filled from the server, ``SyncEngine/refill(_:table:)``) and
/// `refill:<table>` (the progress of that fill), and `scope` (the server's `PushResponse.scope`, of SwiduxSyncWire:
/// the cursor, versions and client id belong to; absent before the first answer). While the
/// engine writes a table's rows from the server (``applying(_:_:_:)``), the table's
/// `applying` mark in the registry of logged tables is set, and its inserts and updates are
/// journaled without an op (or not at all when no store follows the table): not queued.
///
/// One space's engine keeps its own outbox, state, tables, versions, pending mutations and
/// parked rows: those of the token's own space have the names above, another space's the same
/// names followed by its suffix (`_s1`, `_s2`, … recorded in `swidux_sync_space`,
/// ``SyncSpaceRegistry``). Each engine's outbox is fed the changes of the rows in its space
/// and of those it knows (``feed(_:)``); each pushes only its space's rows, and a row that
/// left the space as a deletion. The set-aside rows and the conflicts are the file's, one table each.
struct SyncSchema: Sendable {
    /// What follows the table names of this space's state: empty for the token's own space.
    let suffix: String
    /// The shared space (`nil`: the token's own).
    let space: String?

    /// The token's own space (and the state every space shares: the renames' count).
    static let main = SyncSchema(suffix: "", space: nil)

    var outbox: String { "swidux_sync_outbox" + suffix }
    var state: String { "swidux_sync_state" + suffix }
    var knownTables: String { "swidux_sync_tables" + suffix }
    var version: String { "swidux_sync_version" + suffix }
    var pending: String { "swidux_sync_pending" + suffix }
    var parked: String { "swidux_sync_parked" + suffix }
    static let setAside = "swidux_sync_set_aside"
    static let conflicts = "swidux_sync_conflict"

    /// The names of the outbox's own triggers of an older layout: `swidux_sync_<table>_insert`,
    /// `_update`, `_delete` (dropped: the outbox is fed from the journal now).
    static let triggerOwner = "swidux_sync"

    /// What separates the column names of an outbox entry's `cols`.
    static let columnSeparator = ChangeJournal.columnSeparator

    /// The outbox's index of rows (their entries, by table and id).
    private var outboxIndexName: String { "\(outbox)_key" }
    private var outboxIndex: String { "CREATE INDEX IF NOT EXISTS \(outboxIndexName) ON \(outbox) (tbl, rid)" }

    /// Creates what is missing: tables, triggers; queues the existing rows of a table
    /// synced for the first time — in the caller's transaction.
    func install(in db: Database, tables: [SyncTable]) throws {
        try db.execute(sql: """
            CREATE TABLE IF NOT EXISTS \(outbox) (
                seq INTEGER PRIMARY KEY AUTOINCREMENT, tbl TEXT NOT NULL, rid NOT NULL, op TEXT NOT NULL, cols TEXT);
            \(outboxIndex);
            CREATE TABLE IF NOT EXISTS \(state) (key TEXT PRIMARY KEY NOT NULL, value);
            CREATE TABLE IF NOT EXISTS \(knownTables) (tbl TEXT PRIMARY KEY NOT NULL);
            CREATE TABLE IF NOT EXISTS \(version) (
                tbl TEXT NOT NULL, rid NOT NULL, version INTEGER NOT NULL, PRIMARY KEY (tbl, rid)) WITHOUT ROWID;
            CREATE TABLE IF NOT EXISTS \(pending) (
                id INTEGER PRIMARY KEY, payload BLOB NOT NULL, through_seq INTEGER NOT NULL);
            CREATE TABLE IF NOT EXISTS \(parked) (
                tbl TEXT NOT NULL, rid NOT NULL, version INTEGER NOT NULL, payload BLOB NOT NULL, PRIMARY KEY (tbl, rid));
            CREATE TABLE IF NOT EXISTS \(Self.setAside) (
                tbl TEXT NOT NULL, rid NOT NULL, bytes INTEGER NOT NULL, PRIMARY KEY (tbl, rid));
            CREATE TABLE IF NOT EXISTS \(Self.conflicts) (
                id INTEGER PRIMARY KEY, tbl TEXT NOT NULL, rid NOT NULL, col TEXT NOT NULL, kept, replaced,
                version INTEGER NOT NULL, replaced_version INTEGER NOT NULL, kept_by TEXT NOT NULL, at INTEGER NOT NULL,
                kind TEXT, reason TEXT);
            INSERT OR IGNORE INTO \(state) (key, value) VALUES ('cursor', 0), ('nextMutation', 1);
            """)
        // An outbox made before changes were recorded by column: its entries have no columns (pushed whole).
        if try !db.columns(in: outbox).contains(where: { $0.name == "cols" }) {
            try db.execute(sql: "ALTER TABLE \(outbox) ADD COLUMN cols TEXT")
        }
        // A conflicts table made before renames were listed in it: `kind` NULL is a replaced value.
        if try !db.columns(in: Self.conflicts).contains(where: { $0.name == "kind" }) {
            try db.execute(sql: "ALTER TABLE \(Self.conflicts) ADD COLUMN kind TEXT")
        }
        // … and before refusals were: their reason.
        if try !db.columns(in: Self.conflicts).contains(where: { $0.name == "reason" }) {
            try db.execute(sql: "ALTER TABLE \(Self.conflicts) ADD COLUMN reason TEXT")
        }
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
        // Not where tables name their rows' spaces: the feed looks a deleted row's entries up
        // (``feed(_:)``), which without the index reads the whole outbox.
        if !tables.contains(where: { $0.spaceColumn != nil }), try tables.contains(where: { table in
            try !known.contains(table.name) && db.tableExists(table.name) && Self.hasRows(table.name.sqlIdentifier, db)
        }) {
            try db.execute(sql: "DROP INDEX IF EXISTS \(outboxIndexName)")
        }
        for table in tables {
            guard try db.tableExists(table.name) else {
                throw SyncError.local(SyncSetupError(message: "the synced table \"\(table.name)\" does not exist in the database"))
            }
            if let column = table.spaceColumn, try !db.columns(in: table.name).contains(where: { $0.name == column }) {
                throw SyncError.local(SyncSetupError(message: "the space column \"\(column)\" of the synced table \"\(table.name)\" does not exist"))
            }
            // The outbox is fed from the journal: the table's triggers are the journal's, made
            // from what a following store registered of it (its position column) and that it is
            // synced. Made again when the table's columns changed, so that an update's entry
            // lists the columns it has now. Entries written before keep their columns: a column
            // the old trigger did not compare is one the table did not have when it was synced,
            // filled from the server (``SyncEngine/refill(_:table:)``) rather than pushed with
            // its default.
            try ChangeJournal.install(in: db, LoggedTables.Entry(table: table.name, idColumn: table.idColumn, synced: true))
            // The outbox's own triggers of an older layout: they would queue every change twice.
            for name in RowChangeTriggers.names(owner: Self.triggerOwner, table: table.name) {
                try db.execute(sql: "DROP TRIGGER IF EXISTS \(name.sqlIdentifier)")
            }
            try noteColumns(try Self.columns(of: table, db), of: table, db)
            let quoted = table.name.sqlIdentifier
            let id = table.idColumn.sqlIdentifier
            if known.insert(table.name).inserted {
                // First sync of this table in this file: every existing row of this space is an
                // insert (the rows of other spaces are theirs to push, and would only be counted
                // as pending here).
                if let here = rowsHere(of: table) {
                    try db.execute(sql: "INSERT INTO \(outbox) (tbl, rid, op) SELECT ?, \(id), 'I' FROM \(quoted) WHERE \(here) ORDER BY rowid",
                                   arguments: [table.name])
                }
                try db.execute(sql: "INSERT INTO \(knownTables) (tbl) VALUES (?)", arguments: [table.name])
            }
        }
        // After the journal was made (by the first table's install). A shared space's feed
        // names the tables whose rows may be in it: made again when they change.
        if !tables.isEmpty {
            try db.execute(sql: "DROP TRIGGER IF EXISTS \(feedName.sqlIdentifier)")
            try db.execute(sql: feed(tables))
        }
    }

    /// The trigger that feeds the outbox from the journal (`swidux_change`): every entry of a
    /// synced table that has an op (not a row the engine wrote as the server has it) is queued
    /// with its op and columns. The outbox keeps its own sequence and what is not acknowledged
    /// yet, which the journal's pruning would lose.
    var feedName: String { "\(outbox)_feed" }
    ///
    /// A shared space's engine is fed only the entries of tables that name a row's space
    /// (``SyncTable/spaceColumn``): a row of another table is always in the token's own space.
    ///
    /// Where tables name their rows' spaces, an engine is fed a row's insertion or update
    /// when the row is in its space, and any change of a row it knows: one whose version is
    /// recorded (the row moved out, which this space pushes as a deletion) or that is queued
    /// (inserted here and not acknowledged yet). A deletion is fed only to the engines that
    /// know the row (the row is gone: its space cannot be read), so that another space's
    /// engine does not count it as pending. The push looks again
    /// (``SyncEngine/isHere(_:table:_:)``).
    func feed(_ tables: [SyncTable]) -> String {
        let literal = Self.literal
        let spaced = tables.filter { $0.spaceColumn != nil }
        var only = ""
        if space != nil {
            only = " AND NEW.tbl IN (\(spaced.map { literal($0.name) }.joined(separator: ", ")))"
        }
        if !spaced.isEmpty {
            let cases = spaced.map { table in
                "WHEN \(literal(table.name)) THEN (SELECT \((table.spaceColumn ?? "").sqlIdentifier) FROM \(table.name.sqlIdentifier) WHERE \(table.idColumn.sqlIdentifier) = NEW.rid)"
            }
            only += """

                    AND ((NEW.op <> 'D' AND (CASE NEW.tbl \(cases.joined(separator: " ")) ELSE NULL END) \(space.map { "= " + literal($0) } ?? "IS NULL"))
                         OR EXISTS (SELECT 1 FROM \(version) WHERE tbl = NEW.tbl AND rid = NEW.rid)
                         OR EXISTS (SELECT 1 FROM \(outbox) WHERE tbl = NEW.tbl AND rid = NEW.rid))
            """
        }
        // SQLite keeps a trigger's text without `IF NOT EXISTS`: this text is compared with it.
        return """
        CREATE TRIGGER \(feedName) AFTER INSERT ON \(ChangeJournal.table)
            WHEN NEW.op IS NOT NULL AND (SELECT synced FROM \(LoggedTables.table) WHERE tbl = NEW.tbl) = 1\(only)
        BEGIN
            INSERT INTO \(outbox) (tbl, rid, op, cols) VALUES (NEW.tbl, NEW.rid, NEW.op, NEW.cols);
        END
        """
    }

    /// The SQL condition that selects the rows of `table` in this space, `nil` when none can
    /// be (a shared space's, of a table that names no space: its rows are the token's own).
    func rowsHere(of table: SyncTable) -> String? {
        guard let column = table.spaceColumn else { return space == nil ? "1" : nil }
        return column.sqlIdentifier + (space.map { " = " + Self.literal($0) } ?? " IS NULL")
    }

    /// `text` as an SQL string literal.
    static func literal(_ text: String) -> String { "'" + text.replacingOccurrences(of: "'", with: "''") + "'" }

    /// The columns of `table` but its id, in the table's order.
    static func columns(of table: SyncTable, _ db: Database) throws -> [String] {
        let id = table.idColumn.lowercased()
        return try db.columns(in: table.name).map(\.name).filter { $0.lowercased() != id }
    }

    /// The column names of an outbox entry's `cols`.
    static func columnNames(_ cols: String) -> [String] {
        cols.split(separator: Self.columnSeparator, omittingEmptySubsequences: true).map(String.init)
    }

    /// Records `columns` as the table's synced columns (`columns:<table>`). When the table has
    /// columns it did not have when it was last synced (a migration added them), its fill
    /// from the server is scheduled (`refill:<table>`): ``SyncEngine/refill(_:table:)``.
    func noteColumns(_ columns: [String], of table: SyncTable, _ db: Database) throws {
        let text = columns.joined(separator: String(Self.columnSeparator))
        let key = "columns:" + table.name
        guard let stored = String.fromDatabaseValue(try value(key, db)) else {
            // First seen: the first pull of the table brings every column anyway.
            try setValue(key, text, db)
            return
        }
        guard stored != text else { return }
        let before = Set(Self.columnNames(stored))
        if columns.contains(where: { !before.contains($0) }) {
            // Kept until the fill is done: it tells which columns are new.
            if try value("refill:" + table.name, db).isNull { try setValue("refill:" + table.name, 0, db) }
        } else if try value("refill:" + table.name, db).isNull {
            // Columns dropped only: nothing to fill.
            try setValue(key, text, db)
        }
    }

    /// Makes the outbox's index of rows when it is missing (``install(in:tables:)`` leaves
    /// it out after queueing a table's rows). Called at the start of a transaction that
    /// looks entries up by row, before any statement reads the outbox: without the index,
    /// each look-up would read the whole outbox.
    func ensureOutboxIndex(_ db: Database) throws {
        if try !hasOutboxIndex(db) { try db.execute(sql: outboxIndex) }
    }

    func hasOutboxIndex(_ db: Database) throws -> Bool {
        try Bool.fetchOne(db.cachedStatement(sql: "SELECT EXISTS (SELECT 1 FROM sqlite_master WHERE type = 'index' AND name = '\(outboxIndexName)')")) ?? false
    }

    /// Runs `body`, which writes rows of `table` as the server has them and nothing else
    /// (pulled live rows: an upsert neither deletes nor cascades), without outbox entries for
    /// them (a first pull wrote an entry for every row, then deleted it as an echo).
    /// Inside a write transaction only: no other connection ever sees the mark. (A trigger of
    /// the app's own that writes other rows of `table` while `body` runs would not queue them
    /// either; triggers on other tables are not affected.)
    static func applying<T>(_ table: String, _ db: Database, _ body: () throws -> T) throws -> T {
        try LoggedTables.applying(table, db, body)
    }

    /// `true` when the schema and the triggers of `tables` exist (nothing to write).
    func isInstalled(in db: Database, tables: [SyncTable]) throws -> Bool {
        guard try db.tableExists(parked), try db.tableExists(knownTables), try db.tableExists(Self.setAside),
              try db.tableExists(Self.conflicts), try db.columns(in: outbox).contains(where: { $0.name == "cols" }),
              try db.columns(in: Self.conflicts).contains(where: { $0.name == "kind" }),
              try db.columns(in: Self.conflicts).contains(where: { $0.name == "reason" }),
              try tables.isEmpty || String.fetchOne(db, sql: "SELECT sql FROM sqlite_master WHERE type = 'trigger' AND name = ?", arguments: [feedName]) == feed(tables)
        else { return false }
        for table in tables {
            guard try db.tableExists(table.name) else { return false }
            // The journal's triggers made from the synced entry and the table's current
            // columns, and none of the outbox's own of an older layout.
            let columns = try Self.columns(of: table, db)
            let old = try Int.fetchOne(db, sql: "SELECT count(*) FROM sqlite_master WHERE type = 'trigger' AND name IN (?, ?, ?)",
                                       arguments: StatementArguments(RowChangeTriggers.names(owner: Self.triggerOwner, table: table.name))) ?? 0
            guard old == 0, try ChangeJournal.isCurrent(in: db, syncedTable: table.name, idColumn: table.idColumn) else { return false }
            let noted = String.fromDatabaseValue(try value("columns:" + table.name, db))
            if noted != columns.joined(separator: String(Self.columnSeparator)), try value("refill:" + table.name, db).isNull { return false }
            let known = try Bool.fetchOne(db, sql: "SELECT 1 FROM \(knownTables) WHERE tbl = ?", arguments: [table.name]) ?? false
            if !known { return false }
        }
        return true
    }

    func value(_ key: String, _ db: Database) throws -> DatabaseValue {
        try DatabaseValue.fetchOne(db, sql: "SELECT value FROM \(state) WHERE key = ?", arguments: [key]) ?? .null
    }

    func setValue(_ key: String, _ value: some DatabaseValueConvertible, _ db: Database) throws {
        try db.execute(sql: "INSERT OR REPLACE INTO \(state) (key, value) VALUES (?, ?)", arguments: [key, value])
    }

    /// Whether `table` (one of these tables, or a quoted name) holds any row.
    static func hasRows(_ table: String, _ db: Database) throws -> Bool {
        try Bool.fetchOne(db.cachedStatement(sql: "SELECT EXISTS (SELECT 1 FROM \(table))")) ?? false
    }

    /// The last outbox sequence ever written (0 when none).
    func lastOutboxSequence(_ db: Database) throws -> Int64 {
        try Int64.fetchOne(db.cachedStatement(sql: "SELECT seq FROM sqlite_sequence WHERE name = '\(outbox)'")) ?? 0
    }
}

/// A synced table that cannot be used as it is.
struct SyncSetupError: Error, CustomStringConvertible {
    let message: String
    var description: String { message }
}
