import GRDB
@testable import SwiduxSQLite
import SwiduxTestSupport
import Testing

/// The registry of logged tables: each installer records what it knows of a table, neither
/// erases what the other recorded, and the journal's triggers follow the registered columns.
@Suite struct LoggedTablesTests {
    private func database() throws -> DatabaseQueue {
        let queue = try DatabaseQueue()
        try queue.write { db in
            try db.execute(sql: #"CREATE TABLE "it's" ("the ""id""" TEXT PRIMARY KEY, a INTEGER, b INTEGER)"#)
        }
        return queue
    }

    private static let id = #"the "id""#

    /// What a sync engine knows of a table: its id column, and that it is synced.
    private static let synced = LoggedTables.Entry(table: "it's", idColumn: id, synced: true)

    @Test func syncThenJournalKeepsBoth() throws {
        let queue = try database()
        let entry = try queue.write { db in
            #expect(try LoggedTables.register(Self.synced, in: db).changed)
            #expect(try LoggedTables.entry("it's", in: db) == Self.synced)
            try ChangeJournal.install(in: db, table: "it's", idColumn: Self.id, positionColumn: "a")
            return try LoggedTables.entry("it's", in: db)
        }
        #expect(entry == LoggedTables.Entry(table: "it's", idColumn: Self.id, positionColumn: "a", synced: true))
    }

    @Test func journalThenSyncKeepsBoth() throws {
        let queue = try database()
        let (entries, again) = try queue.write { db in
            try ChangeJournal.install(in: db, table: "it's", idColumn: Self.id, positionColumn: "a")
            #expect(try LoggedTables.entry("it's", in: db)?.synced == false)
            try LoggedTables.register(Self.synced, in: db)
            // Registering what is already known changes nothing.
            let again = try LoggedTables.register(Self.synced, in: db).changed
                || LoggedTables.register(LoggedTables.Entry(table: "it's", idColumn: Self.id, positionColumn: "a"), in: db).changed
            return (try LoggedTables.all(in: db), again)
        }
        #expect(entries == [LoggedTables.Entry(table: "it's", idColumn: Self.id, positionColumn: "a", synced: true)])
        #expect(!again)
    }

    @Test func journalTriggersFollowTheRegisteredPositionColumn() throws {
        let queue = try database()
        let placed = try queue.write { db -> [Int] in
            #expect(try ChangeJournal.install(in: db, table: "it's", idColumn: Self.id, positionColumn: "a"))
            // The table's position column is now `b`: the triggers compare it instead of `a`,
            // and nothing was missed, so no reader needs to read the table whole.
            #expect(try !ChangeJournal.install(in: db, table: "it's", idColumn: Self.id, positionColumn: "b"))
            #expect(try LoggedTables.entry("it's", in: db)?.positionColumn == "b")
            try db.execute(sql: #"INSERT INTO "it's" VALUES ('r', 0, 0); UPDATE "it's" SET a = 1; UPDATE "it's" SET b = 1"#)
            return try Int.fetchAll(db, sql: "SELECT placed FROM swidux_change ORDER BY seq")
        }
        #expect(placed == [1, 0, 1])
    }

    @Test func triggersOfAnOlderVersionAreRegisteredWithoutRereading() throws {
        let queue = try database()
        let created = try queue.write { db -> Bool in
            try ChangeJournal.install(in: db, table: "it's", idColumn: Self.id, positionColumn: "a")
            // A file of the version before the registry: the triggers, no entry.
            try db.execute(sql: "DROP TABLE \(LoggedTables.table)")
            #expect(try !ChangeJournal.isCurrent(in: db, table: "it's", idColumn: Self.id, positionColumn: "a"))
            let created = try ChangeJournal.install(in: db, table: "it's", idColumn: Self.id, positionColumn: "a")
            #expect(try ChangeJournal.isCurrent(in: db, table: "it's", idColumn: Self.id, positionColumn: "a"))
            #expect(try ChangeJournal.isInstalled(in: db, table: "it's"))
            return created
        }
        #expect(!created)
    }

    @Test func readOnlyFileOfAnOlderVersionIsFollowedUnregistered() async throws {
        let directory = try TemporaryDirectory()
        let path = directory.path("old.sqlite")
        do {
            let database = try SwiduxDatabase(path: path, migrations: Schema.migrations)
            try await database.writer.write { db in
                try db.installChangeJournal(for: Schema.todos)
                try db.execute(sql: "DROP TABLE \(LoggedTables.table)")
            }
            try database.close()
        }
        // The triggers log every change without the entry: a read-only open follows the file
        // rather than refusing for want of a write it cannot make.
        let readOnly = try SwiduxDatabase(path: path, migrations: Schema.migrations, access: .readOnly)
        let feed = try readOnly.changeFeed(for: Schema.todos)
        feed.cancel()
        #expect(try await readOnly.writer.read { db in try LoggedTables.all(in: db) }.isEmpty)
        try readOnly.close()
        // The next writable open registers it.
        let writable = try SwiduxDatabase(path: path, migrations: Schema.migrations)
        let again = try writable.changeFeed(for: Schema.todos)
        again.cancel()
        #expect(try await writable.writer.read { db in try LoggedTables.entry("todo", in: db) }
                == LoggedTables.Entry(table: "todo", idColumn: Schema.todos.idColumn, positionColumn: Schema.todos.positionColumn))
        try writable.close()
    }

    @Test func readOnlyFileOnlySyncedIsNotFollowed() async throws {
        let directory = try TemporaryDirectory()
        let path = directory.path("synced.sqlite")
        do {
            let database = try SwiduxDatabase(path: path, migrations: Schema.migrations)
            try await database.writer.write { db in
                // What a sync engine installs: the journal's triggers, which leave out the rows
                // it writes from the server while no store follows the table.
                _ = try ChangeJournal.install(in: db, LoggedTables.Entry(table: "todo", idColumn: Schema.todos.idColumn, synced: true))
            }
            try database.close()
        }
        let readOnly = try SwiduxDatabase(path: path, migrations: Schema.migrations, access: .readOnly)
        #expect(throws: SwiduxDatabaseError.self) { try readOnly.changeFeed(for: Schema.todos) }
        try readOnly.close()
        // A writable open registers the position column: the applied rows are journaled.
        let writable = try SwiduxDatabase(path: path, migrations: Schema.migrations)
        let feed = try writable.changeFeed(for: Schema.todos)
        feed.cancel()
        #expect(try await writable.writer.read { db in try LoggedTables.entry("todo", in: db)?.positionColumn }
                == Schema.todos.positionColumn)
        try writable.close()
    }

    @Test func applyingMarkHoldsOnlyWhileTheBodyRuns() throws {
        struct Refused: Error {}
        let queue = try database()
        try queue.write { db in
            try LoggedTables.register(Self.synced, in: db)
            let mark = LoggedTables.applyingMark("it's")
            let inside = try LoggedTables.applying("it's", db) { try Int.fetchOne(db, sql: mark) }
            #expect(inside == 1)
            #expect(try Int.fetchOne(db, sql: mark) == 0)
            #expect(throws: Refused.self) {
                try LoggedTables.applying("it's", db) { () throws -> Void in throw Refused() }
            }
            #expect(try Int.fetchOne(db, sql: mark) == 0)
            // Registering again while the mark is set does not clear it.
            try LoggedTables.applying("it's", db) {
                try LoggedTables.register(LoggedTables.Entry(table: "it's", idColumn: Self.id, positionColumn: "a"), in: db)
                #expect(try Int.fetchOne(db, sql: mark) == 1)
            }
        }
    }

    @Test func aNewIdColumnReplacesTheOld() {
        let old = LoggedTables.Entry(table: "t", idColumn: "id", positionColumn: "p", synced: true)
        #expect(old.merged(with: LoggedTables.Entry(table: "t", idColumn: "key")) ==
                LoggedTables.Entry(table: "t", idColumn: "key", positionColumn: "p", synced: true))
    }
}
