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
/// - `origin`: `'sync'` on the entries a Swidux sync engine's transactions wrote (pulled
///   pages, refused pushes: ``markOrigin(_:after:_:)``), so that a following store takes
///   them in as changes of a sync engine (`ActionSource.sync`); `NULL` otherwise. Which
///   entries a store's own flushes wrote is recorded in memory (`JournalState`), row by
///   row: the rows a flush changed as a consequence (cascades, triggers) are not its own.
///
/// Bounded: every 256th entry deletes the entries more than ``retention`` older. A reader
/// whose cursor fell behind the pruned range re-hydrates instead of replaying.
package enum ChangeJournal {
    static let table = "swidux_change"
    /// Entries kept (plus up to 256).
    static let retention: Int64 = 10_000

    /// Creates the journal and the triggers of `table` where missing. Returns `true` if
    /// anything was created (changes made before were not journaled).
    @discardableResult
    static func install(in db: Database, table: String, idColumn: String, positionColumn: String) throws -> Bool {
        var created = false
        if try !db.tableExists(Self.table) {
            try db.execute(sql: """
                CREATE TABLE \(Self.table) (
                    seq INTEGER PRIMARY KEY AUTOINCREMENT,
                    tbl TEXT NOT NULL,
                    rid NOT NULL,
                    placed INTEGER NOT NULL DEFAULT 0,
                    origin TEXT
                );
                CREATE TRIGGER \(Self.table)_prune AFTER INSERT ON \(Self.table) WHEN NEW.seq % 256 = 0
                BEGIN
                    DELETE FROM \(Self.table) WHERE seq <= NEW.seq - \(retention);
                END;
                """)
            created = true
        }
        // The triggers are made from the registry's whole entry, so that what a sync engine
        // registered of the table is kept, whichever of the two installs last.
        let registered = try LoggedTables.register(
            LoggedTables.Entry(table: table, idColumn: idColumn, positionColumn: positionColumn), in: db)
        let entry = registered.entry
        let triggers = Self.triggers(table: table, idColumn: entry.idColumn, positionColumn: entry.positionColumn ?? positionColumn)
        let existing = Set(try String.fetchAll(db, sql: """
            SELECT name FROM sqlite_master WHERE type = 'trigger' AND tbl_name = ? COLLATE NOCASE
            """, arguments: [table]))
        let complete = Set(triggers.names).isSubset(of: existing)
        if registered.changed {
            // Triggers made for another id or position column compare the wrong columns. Made
            // again in this transaction, so no change goes unlogged in between.
            for name in triggers.names where existing.contains(name) {
                try db.execute(sql: "DROP TRIGGER \(RowChangeTriggers.identifier(name))")
            }
        } else if complete {
            return created
        }
        try db.execute(sql: triggers.sql)
        return created || !complete
    }

    /// `true` when the journal and the triggers of `table` exist.
    static func isInstalled(in db: Database, table: String) throws -> Bool {
        guard try db.tableExists(Self.table) else { return false }
        let count = try Int.fetchOne(db, sql: """
            SELECT count(*) FROM sqlite_master WHERE type = 'trigger' AND name IN (?, ?, ?)
            """, arguments: StatementArguments(triggerNames(table))) ?? 0
        return count == 3
    }

    /// `true` when the registry of logged tables knows `table` with this id and position
    /// column (a file of a version before the registry has the triggers but not the entry).
    static func isRegistered(in db: Database, table: String, idColumn: String, positionColumn: String) throws -> Bool {
        guard let entry = try LoggedTables.entry(table, in: db) else { return false }
        return entry.idColumn == idColumn && entry.positionColumn == positionColumn
    }

    static func triggerNames(_ table: String) -> [String] {
        RowChangeTriggers.names(owner: Self.table, table: table)
    }

    /// The journal's triggers on `table`: an entry is `placed` when the row is new, or its id
    /// or position changed (a reader then places it among its neighbours).
    static func triggers(table: String, idColumn: String, positionColumn: String) -> RowChangeTriggers {
        let idChanged = RowChangeTriggers.changed(idColumn)
        return RowChangeTriggers(
            owner: Self.table, log: Self.table, table: table, idColumn: idColumn,
            inserted: [("placed", "1")],
            movedAway: [("placed", "0")],
            updated: [("placed", "\(idChanged) OR \(RowChangeTriggers.changed(positionColumn))")],
            deleted: [("placed", "0")])
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
