import GRDB
@testable import SwiduxSQLite
import Testing

/// The journal's entries say what happened to the row (`op`) and, for a synced table's
/// updates, which columns changed (`cols`), made from the registry's entry; a sync engine's
/// writes of the server's rows are journaled without an op.
@Suite struct ChangeJournalOperationsTests {
    private static let id = #"the "id""#
    private static let separator = String(ChangeJournal.columnSeparator)

    private func database() throws -> DatabaseQueue {
        let queue = try DatabaseQueue()
        try queue.write { db in
            try db.execute(sql: #"CREATE TABLE "it's" ("the ""id""" TEXT PRIMARY KEY, a INTEGER, "b'" INTEGER)"#)
        }
        return queue
    }

    /// `(rid, placed, op, cols)` of every entry, NULL as "-".
    private func entries(_ db: Database) throws -> [[String]] {
        try Row.fetchAll(db, sql: """
            SELECT rid, CAST(placed AS TEXT), ifnull(op, '-'), ifnull(cols, '-') FROM swidux_change ORDER BY seq
            """).map { row in (0..<4).map { row[$0] as String } }
    }

    private func change(_ db: Database) throws {
        try db.execute(sql: #"""
            INSERT INTO "it's" VALUES ('r', 0, 0);
            UPDATE "it's" SET "b'" = 1;
            UPDATE "it's" SET a = 1, "b'" = 2;
            UPDATE "it's" SET "the ""id""" = 's';
            DELETE FROM "it's";
            """#)
    }

    @Test func unsyncedTableHasOpsWithoutColumns() throws {
        let result = try database().write { db in
            try ChangeJournal.install(in: db, table: "it's", idColumn: Self.id, positionColumn: "a")
            try change(db)
            return try entries(db)
        }
        #expect(result == [
            ["r", "1", "I", "-"],
            ["r", "0", "U", "-"],
            ["r", "1", "U", "-"],
            ["r", "0", "D", "-"],
            ["s", "1", "I", "-"],
            ["s", "0", "D", "-"],
        ])
    }

    @Test func syncedTableListsChangedColumns() throws {
        let sep = Self.separator
        let result = try database().write { db in
            try ChangeJournal.install(in: db, table: "it's", idColumn: Self.id, positionColumn: "a")
            // A sync engine registers the table: the triggers are made again with the columns.
            try ChangeJournal.install(in: db, LoggedTables.Entry(table: "it's", idColumn: Self.id, synced: true))
            try change(db)
            return try entries(db)
        }
        #expect(result == [
            ["r", "1", "I", "-"],
            ["r", "0", "U", "\(sep)b'"],
            ["r", "1", "U", "\(sep)a\(sep)b'"],
            ["r", "0", "D", "-"],
            ["s", "1", "I", "-"],
            ["s", "0", "D", "-"],
        ])
    }

    @Test func appliedRowsAreJournaledWithoutAnOpButDeletesKeepIt() throws {
        let result = try database().write { db in
            try ChangeJournal.install(in: db, table: "it's", idColumn: Self.id, positionColumn: "a")
            try ChangeJournal.install(in: db, LoggedTables.Entry(table: "it's", idColumn: Self.id, synced: true))
            try LoggedTables.applying("it's", db) { try change(db) }
            return try entries(db)
        }
        #expect(result == [
            ["r", "1", "-", "-"],
            ["r", "0", "-", "-"],
            ["r", "1", "-", "-"],
            ["r", "0", "-", "-"],
            ["s", "1", "-", "-"],
            ["s", "0", "D", "-"],
        ])
    }

    @Test func appliedRowsOfATableNoStoreFollowsAreNotJournaled() throws {
        let result = try database().write { db in
            // Only a sync engine registered the table: no reader wants the applied rows, and an
            // entry is placed when the row is new or its id changed.
            try ChangeJournal.install(in: db, LoggedTables.Entry(table: "it's", idColumn: Self.id, synced: true))
            try LoggedTables.applying("it's", db) { try change(db) }
            try db.execute(sql: #"INSERT INTO "it's" VALUES ('t', 0, 0); UPDATE "it's" SET a = 5"#)
            return try entries(db)
        }
        #expect(result == [
            ["s", "0", "D", "-"],
            ["t", "1", "I", "-"],
            ["t", "0", "U", "\(Self.separator)a"],
        ])
    }

    @Test func aNewColumnIsComparedAfterTheNextInstall() throws {
        let sep = Self.separator
        let result = try database().write { db in
            let synced = LoggedTables.Entry(table: "it's", idColumn: Self.id, synced: true)
            try ChangeJournal.install(in: db, synced)
            try db.execute(sql: #"ALTER TABLE "it's" ADD COLUMN c INTEGER"#)
            #expect(try !ChangeJournal.isCurrent(in: db, table: "it's", idColumn: Self.id, positionColumn: "a"))
            #expect(try !ChangeJournal.install(in: db, synced))
            try db.execute(sql: #"INSERT INTO "it's" VALUES ('r', 0, 0, 0); UPDATE "it's" SET c = 1"#)
            return try entries(db).last
        }
        #expect(result == ["r", "0", "U", "\(sep)c"])
    }

    @Test func journalOfAnOlderLayoutGainsOpsInPlace() throws {
        let result = try database().write { db in
            // The journal and a trigger as an older version made them: no op, no cols.
            try db.execute(sql: #"""
                CREATE TABLE swidux_change (
                    seq INTEGER PRIMARY KEY AUTOINCREMENT, tbl TEXT NOT NULL, rid NOT NULL,
                    placed INTEGER NOT NULL DEFAULT 0, origin TEXT);
                CREATE TRIGGER "swidux_change_it's_insert" AFTER INSERT ON "it's"
                BEGIN INSERT INTO swidux_change (tbl, rid, placed) VALUES ('it''s', NEW."the ""id""", 1); END;
                INSERT INTO "it's" VALUES ('old', 0, 0);
                """#)
            #expect(try !ChangeJournal.isCurrent(in: db, table: "it's", idColumn: Self.id, positionColumn: "a"))
            // Two triggers were missing: a reader reads the table whole.
            #expect(try ChangeJournal.install(in: db, table: "it's", idColumn: Self.id, positionColumn: "a"))
            #expect(try ChangeJournal.isCurrent(in: db, table: "it's", idColumn: Self.id, positionColumn: "a"))
            try db.execute(sql: #"INSERT INTO "it's" VALUES ('new', 0, 0)"#)
            #expect(try Int.fetchOne(db, sql: "SELECT count(*) FROM sqlite_master WHERE type = 'trigger' AND tbl_name = 'it''s'") == 3)
            return try entries(db)
        }
        #expect(result == [["old", "1", "-", "-"], ["new", "1", "I", "-"]])
    }
}
