import GRDB
@testable import SwiduxSQLite
import Testing

/// The one trigger generator: every change of a row, whoever makes it, is one entry (two for a
/// changed id), and names with quotes stay names.
@Suite struct RowChangeTriggersTests {
    static let id = #"the "id""#

    /// A log like the journal's and the outbox's: table, row, the event's values.
    private func logged(when condition: String? = nil, _ changes: (Database) throws -> Void) throws -> [[String]] {
        let queue = try DatabaseQueue()
        return try queue.write { db in
            // An id column named `the "id"`: its quotes doubled inside the identifier.
            try db.execute(sql: """
                CREATE TABLE "it's" (\(Self.id.sqlIdentifier) TEXT PRIMARY KEY, "o'k" INTEGER);
                CREATE TABLE "log'" (seq INTEGER PRIMARY KEY AUTOINCREMENT, tbl TEXT, rid, op TEXT, moved);
                CREATE TABLE skip (on_ INTEGER);
                """)
            let triggers = RowChangeTriggers(
                owner: "t", log: "log'", table: "it's", idColumn: Self.id,
                inserted: [("op", "'I'")], movedAway: [("op", "'D'")],
                updated: [("op", "'U'"), ("moved", RowChangeTriggers.changed(Self.id))], deleted: [("op", "'D'")],
                insertAndUpdateWhen: condition)
            try db.execute(sql: triggers.sql)
            // Idempotent: the statements create only what is missing.
            try db.execute(sql: triggers.sql)
            #expect(try Int.fetchOne(db, sql: "SELECT count(*) FROM sqlite_master WHERE type = 'trigger'") == 3)
            #expect(triggers.names == ["t_it's_insert", "t_it's_update", "t_it's_delete"])
            try changes(db)
            return try Row.fetchAll(db, sql: #"SELECT tbl, rid, op, CAST(ifnull(moved, 'NULL') AS TEXT) FROM "log'" ORDER BY seq"#)
                .map { row in (0..<4).map { row[$0] as String } }
        }
    }

    @Test func insertUpdateRenameDelete() throws {
        let entries = try logged { db in
            try db.execute(sql: #"INSERT INTO "it's" VALUES ('a', 1)"#)
            try db.execute(sql: #"UPDATE "it's" SET "o'k" = 2"#)
            try db.execute(sql: "UPDATE \"it's\" SET \(Self.id.sqlIdentifier) = 'b'")
            try db.execute(sql: #"DELETE FROM "it's""#)
        }
        #expect(entries == [
            ["it's", "a", "I", "NULL"],
            ["it's", "a", "U", "0"],
            ["it's", "a", "D", "NULL"],
            ["it's", "b", "U", "1"],
            ["it's", "b", "D", "NULL"],
        ])
    }

    @Test func conditionSkipsInsertsAndUpdatesNotDeletes() throws {
        let entries = try logged(when: "(SELECT count(*) FROM skip) = 0") { db in
            try db.execute(sql: #"INSERT INTO skip VALUES (1); INSERT INTO "it's" VALUES ('a', 1); UPDATE "it's" SET "o'k" = 2"#)
            try db.execute(sql: #"DELETE FROM "it's""#)
            try db.execute(sql: #"DELETE FROM skip; INSERT INTO "it's" VALUES ('c', 1)"#)
        }
        #expect(entries == [
            ["it's", "a", "D", "NULL"],
            ["it's", "c", "I", "NULL"],
        ])
    }

    @Test func literalDoublesQuotes() {
        #expect(RowChangeTriggers.literal("it's") == "'it''s'")
        #expect(RowChangeTriggers.changed("a\"b") == #"OLD."a""b" IS NOT NEW."a""b""#)
    }
}
