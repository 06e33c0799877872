import Foundation
import GRDB

/// The change journal in the database file: table `swidux_change`, one row per changed row
/// of a journaled entity table, written by SQLite triggers in the transaction that made the
/// change — whoever made it (a Swidux flush, plain SQL in another process, an `ON DELETE
/// CASCADE`).
///
/// - `seq`: increasing in commit order (`AUTOINCREMENT`: never reused, even once pruned).
/// - `tbl`, `rid`: the table and the row's id (as stored).
/// - `placed`: 1 when the row is new or its position changed (the reader places it).
/// - `op`, `cols`: what happened to the row and, for an update of a synced table, which
///   columns changed (``triggers(_:columns:)``); the sync outbox is fed from them.
/// - `origin`: `'sync'` on the entries a Swidux sync engine's transactions wrote (pulled
///   pages, refused pushes: ``markOrigin(_:after:_:)``), so that a following store takes
///   them in as changes of a sync engine (`ActionSource.sync`); `NULL` otherwise. Which
///   entries a store's own flushes wrote is recorded in memory (`JournalState`), row by
///   row: the rows a flush changed as a consequence (cascades, triggers) are not its own.
///
/// Bounded: every 256th entry deletes the entries more than ``retention`` older. A reader
/// whose cursor fell behind the pruned range re-hydrates instead of replaying.
package enum ChangeJournal {
    package static let table = "swidux_change"
    /// Entries kept (plus up to 256).
    static let retention: Int64 = 10_000

    /// Creates the journal and the triggers of `table` where missing. Returns `true` if
    /// anything was created (changes made before were not journaled).
    @discardableResult
    static func install(in db: Database, table: String, idColumn: String, positionColumn: String) throws -> Bool {
        try install(in: db, LoggedTables.Entry(table: table, idColumn: idColumn, positionColumn: positionColumn))
    }

    /// Creates the journal where missing, records what `entry` knows of its table in the
    /// registry of logged tables, and makes the table's triggers from the registry's whole
    /// entry (what a following store and a sync engine each registered), where missing or
    /// made from other values: another id or position column, other columns of the table
    /// compared, an older layout of the journal. Returns `true` if the journal or a trigger
    /// was missing (changes made before were not journaled).
    @discardableResult
    package static func install(in db: Database, _ entry: LoggedTables.Entry) throws -> Bool {
        var created = false
        if try !db.tableExists(Self.table) {
            try db.execute(sql: """
                CREATE TABLE \(Self.table) (
                    seq INTEGER PRIMARY KEY AUTOINCREMENT,
                    tbl TEXT NOT NULL,
                    rid NOT NULL,
                    placed INTEGER NOT NULL DEFAULT 0,
                    origin TEXT,
                    op TEXT,
                    cols TEXT
                );
                CREATE TRIGGER \(Self.table)_prune AFTER INSERT ON \(Self.table) WHEN NEW.seq % 256 = 0
                BEGIN
                    DELETE FROM \(Self.table) WHERE seq <= NEW.seq - \(retention);
                END;
                """)
            created = true
        } else if try !hasOperations(db) {
            // A journal made before entries said what happened to the row: its entries keep
            // NULL (read as "changed in some way"), the triggers made again below write it.
            try db.execute(sql: "ALTER TABLE \(Self.table) ADD COLUMN op TEXT; ALTER TABLE \(Self.table) ADD COLUMN cols TEXT")
        }
        let registered = try LoggedTables.register(entry, in: db).entry
        let missing = try triggers(registered, columns: columns(of: registered, db)).make(in: db)
        return created || missing
    }

    /// Whether the journal has the `op` and `cols` columns.
    static func hasOperations(_ db: Database) throws -> Bool {
        try db.columns(in: Self.table).contains { $0.name == "op" }
    }

    /// `true` when the journal and the triggers of `table` exist.
    package static func isInstalled(in db: Database, table: String) throws -> Bool {
        guard try db.tableExists(Self.table) else { return false }
        let count = try Int.fetchOne(db, sql: """
            SELECT count(*) FROM sqlite_master WHERE type = 'trigger' AND name IN (?, ?, ?)
            """, arguments: StatementArguments(triggerNames(table))) ?? 0
        return count == 3
    }

    /// `true` when the registry of logged tables knows `table` with this id and position
    /// column, and the table's triggers are those its entry and its columns make (a file of
    /// an older version has triggers without the entry, or triggers of an older layout).
    static func isCurrent(in db: Database, table: String, idColumn: String, positionColumn: String) throws -> Bool {
        guard try db.tableExists(Self.table), try hasOperations(db),
              let entry = try LoggedTables.entry(table, in: db),
              entry.idColumn == idColumn, entry.positionColumn == positionColumn
        else { return false }
        return try triggers(entry, columns: columns(of: entry, db)).areCurrent(in: db)
    }

    package static func triggerNames(_ table: String) -> [String] {
        RowChangeTriggers.names(owner: Self.table, table: table)
    }

    /// The columns whose changes an entry of `entry`'s table lists (``changedColumns(_:)``):
    /// for a synced table, every column but its id, in the table's order; none otherwise.
    package static func columns(of entry: LoggedTables.Entry, _ db: Database) throws -> [String] {
        guard entry.synced else { return [] }
        let id = entry.idColumn.lowercased()
        return try db.columns(in: entry.table).map(\.name).filter { $0.lowercased() != id }
    }

    /// The journal's triggers on a registered table.
    ///
    /// - `placed`: 1 when the row is new, or its id or position changed (a reader then places
    ///   it among its neighbours); without a known position column, only the id is compared.
    /// - `op`: `I`, `U` or `D`; an update that changed the row's id is a `D` of the old id and
    ///   an `I` of the new one (a sync server knows rows by id). `NULL` for inserts and
    ///   updates written while a synced table's `applying` mark is set (``LoggedTables/applying(_:_:_:)``):
    ///   those are a sync engine's writes of the server's rows, which a following store must
    ///   see but the outbox must not push back. A delete always has an op: what is applied
    ///   under that mark is live rows only.
    /// - `cols` (synced tables only): for a `U`, the columns the update changed
    ///   (``changedColumns(_:)``), so that a push sends only those.
    ///
    /// A table only a sync engine registered (no position column: no store follows it) has
    /// no reader of those applied writes, so they are not journaled at all: a first pull
    /// writes no entry per row.
    static func triggers(_ entry: LoggedTables.Entry, columns: [String]) -> RowChangeTriggers {
        let idChanged = RowChangeTriggers.changed(entry.idColumn)
        let placed = entry.positionColumn.map { "\(idChanged) OR \(RowChangeTriggers.changed($0))" } ?? idChanged
        // Only a synced table is ever marked: the others need not look the mark up per row.
        let mark = "(\(LoggedTables.applyingMark(entry.table)))"
        let followed = entry.positionColumn != nil
        let applying = entry.synced && followed ? "\(mark) IS 1" : nil
        func op(_ value: String) -> String {
            applying.map { "CASE WHEN \($0) THEN NULL ELSE \(value) END" } ?? value
        }
        var updated: [RowChangeTriggers.Value] = [
            ("placed", placed),
            ("op", op("CASE WHEN \(idChanged) THEN 'I' ELSE 'U' END")),
        ]
        if entry.synced {
            // Compared only when an op is written: an applied row's columns are not pushed.
            let skip = applying.map { "\(idChanged) OR \($0)" } ?? idChanged
            updated.append(("cols", "CASE WHEN \(skip) THEN NULL ELSE \(changedColumns(columns)) END"))
        }
        return RowChangeTriggers(
            owner: Self.table, log: Self.table, table: entry.table, idColumn: entry.idColumn,
            inserted: [("placed", "1"), ("op", op("'I'"))],
            movedAway: [("placed", "0"), ("op", op("'D'"))],
            updated: updated,
            deleted: [("placed", "0"), ("op", "'D'")],
            insertAndUpdateWhen: entry.synced && !followed ? "\(mark) IS NOT 1" : nil)
    }

    /// `true` when the registry knows `table` as synced with this id column, and the table's
    /// triggers are those its entry and its columns make.
    package static func isCurrent(in db: Database, syncedTable table: String, idColumn: String) throws -> Bool {
        guard try db.tableExists(Self.table), try hasOperations(db),
              let entry = try LoggedTables.entry(table, in: db), entry.synced, entry.idColumn == idColumn
        else { return false }
        return try triggers(entry, columns: columns(of: entry, db)).areCurrent(in: db)
    }

    /// What separates the column names of an entry's `cols`.
    package static let columnSeparator: Character = "\u{1F}"

    /// The update trigger's expression of the columns an update changed: for each column
    /// whose `OLD` and `NEW` differ, U+001F and its name.
    ///
    /// ```swift
    /// ChangeJournal.changedColumns(["title"])
    /// // (CASE WHEN OLD."title" IS NOT NEW."title" THEN '\u{1F}title' ELSE '' END)
    /// ```
    package static func changedColumns(_ columns: [String]) -> String {
        guard !columns.isEmpty else { return "''" }
        return "(" + columns.map { name in
            "CASE WHEN \(RowChangeTriggers.changed(name)) THEN \(RowChangeTriggers.literal(String(columnSeparator) + name)) ELSE '' END"
        }.joined(separator: " || ") + ")"
    }

    /// The origin a sync engine marks its entries with (``markOrigin(_:after:_:)``).
    package static let syncOrigin = "sync"

    /// Marks the entries written after sequence `after` with `origin`: call it at the end of
    /// a transaction, with the ``lastSequence(_:)`` read at its start, so that exactly that
    /// transaction's changes (its cascades included) carry it. Does nothing without a journal.
    ///
    /// ```swift
    /// let mark = try ChangeJournal.lastSequence(db)
    /// // … write rows …
    /// try ChangeJournal.markOrigin(ChangeJournal.syncOrigin, after: mark, db)
    /// ```
    package static func markOrigin(_ origin: String, after mark: Int64?, _ db: Database) throws {
        guard let mark else { return }
        try db.cachedStatement(sql: "UPDATE \(Self.table) SET origin = ? WHERE seq > ?").execute(arguments: [origin, mark])
    }

    /// The sequence of the last entry ever written (0 when none), or `nil` without a journal.
    package static func lastSequence(_ db: Database) throws -> Int64? {
        guard try db.tableExists(Self.table) else { return nil }
        return try Int64.fetchOne(db.cachedStatement(sql: "SELECT seq FROM sqlite_sequence WHERE name = '\(Self.table)'")) ?? 0
    }
}

extension Database {
    /// Journals every change of `table` (a trigger per insert, update and delete writes
    /// the row's id to the `swidux_change` table in the same transaction), so that a
    /// ``SwiduxDatabase`` feed — `store.follow(database)` — learns about it. Idempotent.
    ///
    /// `store.follow(database)` installs it for the tables it follows; call it in a
    /// migration to journal changes from the start.
    ///
    /// ```swift
    /// migrations.register("v2-journal") { db in
    ///     try db.installChangeJournal(for: AppDatabase.todos)
    /// }
    /// ```
    public func installChangeJournal<Entity>(for table: EntityTable<Entity>) throws {
        try ChangeJournal.install(in: self, table: table.name, idColumn: table.idColumn, positionColumn: table.positionColumn)
    }
}
