import Clocks
import Foundation
import SwiduxTestSupport
import GRDB
import Logging
import SwiduxSQLite
import SwiduxTesting
import Testing

// MARK: - Fixtures

/// A list; its entries are deleted with it (ON DELETE CASCADE).
struct XList: Codable, Identifiable, Equatable, Sendable, FetchableRecord, PersistableRecord {
    static let databaseTableName = "xlist"
    var id: String
    var name: String
}

struct XEntry: Codable, Identifiable, Equatable, Sendable, FetchableRecord, PersistableRecord {
    static let databaseTableName = "xentry"
    var id: String
    var xlistId: String
    var title: String
}

struct XState: Sendable {
    var todos = EntityStore<Todo>()
    var lists = EntityStore<XList>()
    var entries = EntityStore<XEntry>()
}

enum XAction: Sendable {
    case put(Todo)
    case delete(Int)
}

struct XReducer: SwiduxReducer {
    func reduce(state: inout XState, action: XAction, environment: Void) -> Effect<XAction>? {
        switch action {
        case .put(let todo): state.todos[todo.id] = todo
        case .delete(let id): state.todos[id] = nil
        }
        return nil
    }
}

enum XSchema {
    static let todos = EntityTable<Todo>(named: "todo")
    static let lists = EntityTable(recordsOf: XList.self)
    static let entries = EntityTable(recordsOf: XEntry.self)
    static let migrations = SwiduxMigrations { m in
        m.register("v1") { db in
            try db.createEntityTable(XSchema.todos)
            try db.create(table: "xlist") { t in
                t.primaryKey("id", .text)
                t.entityPositionColumn()
                t.column("name", .text).notNull()
            }
            try db.create(table: "xentry") { t in
                t.primaryKey("id", .text)
                t.entityPositionColumn()
                t.belongsTo("xlist", onDelete: .cascade).notNull()
                t.column("title", .text).notNull()
            }
        }
    }
}

/// A process's view of the file: a database, a store following it, a persistence
/// middleware that flushes only when asked (its clock never advances).
@MainActor
final class Follower {
    let database: SwiduxDatabase
    let persistence: PersistenceMiddleware<XState>
    let store: Store<XState, XAction>
    let feed: ChangeFeed?

    init(path: String, follow: Bool = true, every interval: Duration = .milliseconds(5), logger: Logger = Logger(label: "test")) async throws {
        database = try SwiduxDatabase(path: path, migrations: XSchema.migrations)
        persistence = PersistenceMiddleware(writers: [
            database.stateWriter(for: \.lists, table: XSchema.lists),
            database.stateWriter(for: \.entries, table: XSchema.entries),
            database.stateWriter(for: \.todos, table: XSchema.todos),
        ], clock: TestClock())
        var state = XState()
        (state.todos, state.lists, state.entries) = try await database.hydrateAll(XSchema.todos, XSchema.lists, XSchema.entries)
        store = Store(initialState: state, reducer: XReducer(), environment: (), persistence: persistence)
        feed = follow ? try store.follow(database, every: interval, logger: logger) : nil
    }

    /// What the file holds now, through this follower's connection.
    func file() async throws -> XState {
        var state = XState()
        (state.todos, state.lists, state.entries) = try await database.hydrateAll(XSchema.todos, XSchema.lists, XSchema.entries)
        return state
    }

    /// Waits until the store equals the file (values and order), at most `seconds`.
    func waitUntilEqualToFile(seconds: Double = 10) async throws -> Bool {
        let deadline = Date().addingTimeInterval(seconds)
        while Date() < deadline {
            let file = try await file()
            let state = store.state
            if file.todos.values == state.todos.values, file.lists.values == state.lists.values,
               file.entries.values == state.entries.values { return true }
            try await Task.sleep(for: .milliseconds(5))
        }
        return false
    }
}

/// Waits (polling) for asynchronous work to reach a condition, at most `seconds`.
@MainActor
func eventually(seconds: Double = 10, _ condition: @MainActor () throws -> Bool) async rethrows -> Bool {
    let deadline = Date().addingTimeInterval(seconds)
    while Date() < deadline {
        if try condition() { return true }
        try? await Task.sleep(for: .milliseconds(2))
    }
    return try condition()
}

func todo(_ id: Int, _ title: String) -> Todo { Todo(id: id, title: title, done: false, tags: []) }

/// Counts the rows written to the entity tables (every insert, update and delete).
func installWriteCounter(_ database: SwiduxDatabase) throws {
    try database.writer.write { db in
        try db.execute(sql: "CREATE TABLE write_count (n INTEGER NOT NULL); INSERT INTO write_count VALUES (0)")
        for table in ["todo", "xlist", "xentry"] {
            for event in ["INSERT", "UPDATE", "DELETE"] {
                try db.execute(sql: "CREATE TRIGGER count_\(table)_\(event) AFTER \(event) ON \(table) BEGIN UPDATE write_count SET n = n + 1; END")
            }
        }
    }
}

func writeCount(_ database: SwiduxDatabase) throws -> Int {
    try database.writer.read { db in try Int.fetchOne(db, sql: "SELECT n FROM write_count") ?? -1 }
}

// MARK: - Tests

@MainActor
@Suite("External changes: a store follows its database", .timeLimit(.minutes(3)))
struct ExternalChangesTests {
    @Test("Upserts, deletes, cascaded deletes and raw SQL by another connection reach the store; nothing is written back")
    func anotherConnectionsWritesReachTheStore() async throws {
        let directory = try TemporaryDirectory()
        let path = directory.path("app.sqlite")
        let a = try await Follower(path: path)
        let b = try await Follower(path: path, follow: false)
        try installWriteCounter(b.database)

        b.store.send(.put(todo(1, "one")))
        b.store.send(.put(todo(2, "two")))
        try await b.database.performAtomically([
            { db in try XSchema.lists.write(WriteBatch(writes: [XList(id: "L", name: "list")], insertions: ["L"]), in: db) },
            { db in try XSchema.entries.write(WriteBatch(
                writes: [XEntry(id: "e1", xlistId: "L", title: "x"), XEntry(id: "e2", xlistId: "L", title: "y")],
                insertions: ["e1", "e2"]), in: db) },
        ])
        try await b.store.flush()
        #expect(try await a.waitUntilEqualToFile())
        #expect(a.store.state.todos.values == [todo(1, "one"), todo(2, "two")])
        #expect(a.store.state.entries.ids == ["e1", "e2"])

        // Plain SQL: an update and a new row; then a cascade.
        try await b.database.writer.write { db in
            try db.execute(sql: #"UPDATE todo SET data = '{"id":1,"title":"raw","done":true,"tags":[]}' WHERE id = 1"#)
            try db.execute(sql: "DELETE FROM xlist WHERE id = 'L'")
        }
        b.store.send(.delete(2))
        try await b.store.flush()
        #expect(try await a.waitUntilEqualToFile())
        #expect(a.store.state.todos.values == [Todo(id: 1, title: "raw", done: true, tags: [])])
        #expect(a.store.state.lists.isEmpty)
        #expect(a.store.state.entries.isEmpty)

        // A wrote nothing back.
        let written = try writeCount(b.database)
        #expect(!a.persistence.hasPendingWrites)
        try await a.store.flush()
        try await Task.sleep(for: .milliseconds(50))
        #expect(try writeCount(b.database) == written)
        #expect(a.persistence.flushCount == 0 || !a.persistence.hasPendingWrites)
    }

    @Test("A child process's plain SQL writes reach the store")
    func childProcessWritesReachTheStore() async throws {
        let directory = try TemporaryDirectory()
        let path = directory.path("app.sqlite")
        let database = try SwiduxDatabase(path: path, migrations: CrashAtomicityTests.migrations)
        let persistence = PersistenceMiddleware<ChildState>(
            writers: [database.stateWriter(for: \.a, table: CrashAtomicityTests.tableA)], clock: TestClock())
        var state = ChildState()
        state.a = try await database.hydrate(CrashAtomicityTests.tableA)
        let store = Store(initialState: state, reducer: ChildReducer(), environment: (), persistence: persistence)
        try store.follow(database, every: .milliseconds(5))
        let writer = try CrashAtomicityTests.crashWriterPath()
        let output = directory.path("child.log")
        let insert = #"INSERT INTO a (id, position, data) VALUES (1, 0, '{"id":1,"flush":7,"payload":"child"}'), (2, 1, '{"id":2,"flush":7,"payload":"two"}')"#
        #expect(try await ChildProcess.run([writer, "sql", path, insert], output: output) == 0)
        #expect(await eventually { store.state.a.ids == [1, 2] })
        #expect(store.state.a[1]?.payload == "child")
        #expect(try await ChildProcess.run([writer, "sql", path, "DELETE FROM a WHERE id = 1"], output: output) == 0)
        #expect(await eventually { store.state.a.ids == [2] })
        #expect(!persistence.hasPendingWrites)
    }

    @Test("Another writer's change to an id with a local unflushed change does not replace it; after the flush the file holds the local value")
    func pendingLocalValueWins() async throws {
        let directory = try TemporaryDirectory()
        let path = directory.path("app.sqlite")
        let a = try await Follower(path: path)
        let b = try await Follower(path: path, follow: false)
        a.store.send(.put(todo(1, "a0")))
        try await a.store.flush()
        b.store.send(.put(todo(1, "from b")))   // b has not seen a's row: an insertion, upserted
        b.store.send(.put(todo(2, "marker")))
        a.store.send(.put(todo(1, "a-local")))  // pending in a
        try await b.store.flush()
        #expect(await eventually { a.store.state.todos[2] != nil })
        try await Task.sleep(for: .milliseconds(30))   // further polls change nothing
        #expect(a.store.state.todos[1]?.title == "a-local")
        try await a.store.flush()
        #expect(try await a.file().todos[1]?.title == "a-local")
        #expect(try await a.waitUntilEqualToFile())
    }

    @Test("The journal is installed on first follow; a file written before is merged once")
    func journalInstalledOnFirstFollow() async throws {
        let directory = try TemporaryDirectory()
        let path = directory.path("app.sqlite")
        let a = try await Follower(path: path, follow: false)   // hydrated, no journal yet
        let b = try await Follower(path: path, follow: false)
        b.store.send(.put(todo(5, "before the journal")))
        try await b.store.flush()
        a.store.send(.put(todo(6, "a pending")))
        try a.store.follow(a.database, every: .milliseconds(5))
        #expect(await eventually { a.store.state.todos[5] != nil })
        #expect(a.store.state.todos.ids == [5, 6])
        #expect(try await a.database.writer.read { db in try db.tableExists("swidux_change") })
    }

    @Test("A reader far behind a pruned journal re-hydrates (merge) and ends equal to the file")
    func readerBehindPrunedJournalRehydrates() async throws {
        let directory = try TemporaryDirectory()
        let path = directory.path("app.sqlite")
        // The journal exists before A hydrates (cursor known), then A falls far behind.
        let setup = try await Follower(path: path)
        setup.feed?.cancel()
        let a = try await Follower(path: path, follow: false)
        let b = try await Follower(path: path, follow: false)
        for id in 0..<50 { b.store.send(.put(todo(id, "b\(id)"))) }
        try await b.store.flush()
        for id in 0..<20 { b.store.send(.delete(id)) }
        try await b.store.flush()
        try await b.database.writer.write { db in
            // Pruned: only the newest entry is left.
            try db.execute(sql: "DELETE FROM swidux_change WHERE seq < (SELECT max(seq) FROM swidux_change)")
        }
        try a.store.follow(a.database, every: .milliseconds(5))
        #expect(try await a.waitUntilEqualToFile())
        #expect(a.store.state.todos.ids == Array(20..<50))
        #expect(!a.persistence.hasPendingWrites)
    }

    @Test("The journal stays bounded: old entries are pruned")
    func journalIsPruned() async throws {
        let directory = try TemporaryDirectory()
        let a = try await Follower(path: directory.path("app.sqlite"))
        try await a.database.writer.write { db in
            for id in 0..<10_600 {
                try db.execute(sql: "INSERT INTO todo (id, position, data) VALUES (?, ?, '{}')", arguments: [id, id])
            }
            try db.execute(sql: "DELETE FROM todo")
        }
        let count = try await a.database.writer.read { db in try Int.fetchOne(db, sql: "SELECT count(*) FROM swidux_change") ?? 0 }
        #expect(count <= 10_000 + 256)
        #expect(count >= 10_000)
    }

    @Test("Bad journal entries (unknown table, id or row that does not decode) are skipped with a logged error; the rest applies")
    func badJournalEntriesAreSkipped() async throws {
        let directory = try TemporaryDirectory()
        let path = directory.path("app.sqlite")
        let log = CapturedLog(minimum: .error)
        let a = try await Follower(path: path, logger: log.logger)
        let b = try await Follower(path: path, follow: false)
        try await b.database.writer.write { db in
            try db.execute(sql: "INSERT INTO swidux_change (tbl, rid) VALUES ('no_such_table', 1), ('todo', 'not-an-int')")
            try db.execute(sql: "INSERT INTO todo (id, position, data) VALUES (98, 0, 'garbage')")
            try db.execute(sql: #"INSERT INTO todo (id, position, data) VALUES (99, 1, '{"id":99,"title":"good","done":false,"tags":[]}')"#)
        }
        #expect(await eventually { a.store.state.todos[99] != nil })
        #expect(a.store.state.todos.ids == [99])
        let errors = log.messages.joined(separator: "\n")
        #expect(errors.contains("no_such_table"))
        #expect(errors.contains("not-an-int"))
        #expect(errors.contains("row 98"))
    }

    @Test("A store built with persistence(hydrating:) follows with one line; later commits reach it")
    func followsAfterTheOneCallSetUp() async throws {
        let directory = try TemporaryDirectory()
        let path = directory.path("app.sqlite")
        let b = try await Follower(path: path, follow: false)
        b.store.send(.put(todo(1, "before")))
        try await b.store.flush()
        let database = try SwiduxDatabase(path: path, migrations: XSchema.migrations)
        var state = XState()
        let persistence = try database.persistence(hydrating: &state, [
            .entities(\.entries, in: XSchema.entries),
            .entities(\.lists, in: XSchema.lists),
            .entities(\.todos, in: XSchema.todos),
        ], clock: TestClock())
        let store = Store(initialState: state, reducer: XReducer(), environment: (), persistence: persistence)
        try store.follow(database, every: .milliseconds(5))
        b.store.send(.put(todo(2, "after")))
        try await b.store.flush()
        #expect(await eventually { store.state.todos.ids == [1, 2] })
        #expect(!persistence.hasPendingWrites)
    }

    @Test("The feed stops when the store goes away")
    func feedStopsWithTheStore() async throws {
        let directory = try TemporaryDirectory()
        var a: Follower? = try await Follower(path: directory.path("app.sqlite"))
        let feed = try #require(a?.feed)
        a = nil
        let ended = Task {
            for await _ in feed.batches {}
            return true
        }
        #expect(await ended.value)
    }

    @Test("Randomized: two writer processes on overlapping ids with random flush timing; both stores end equal to the file")
    func twoWriterProcessesConverge() async throws {
        let steps = Int(ProcessInfo.processInfo.environment["SWIDUX_EXTERNAL_STEPS"] ?? "") ?? 150
        let rounds = Int(ProcessInfo.processInfo.environment["SWIDUX_EXTERNAL_ROUNDS"] ?? "") ?? 2
        let writer = try CrashAtomicityTests.crashWriterPath()
        for round in 0..<rounds {
            let directory = try TemporaryDirectory()
            let path = directory.path("app.sqlite")
            let setup = try SwiduxDatabase(path: path, migrations: CrashAtomicityTests.migrations)
            try setup.close()
            let seed = UInt64(round * 2 + 1) &* 0x9E37_79B9
            var children: [ChildProcess] = []
            for me in [0, 1] {
                children.append(try await ChildProcess.start([
                    writer, "follow-writer", path, "\(seed &+ UInt64(me))", "\(steps)",
                    directory.path("done\(me)"), directory.path("done\(1 - me)"), directory.path("dump\(me).json"),
                ], output: directory.path("child\(me).log")))
            }
            for child in children {
                let status = try await child.wait()
                #expect(status == 0, "round \(round): \((try? String(contentsOfFile: directory.path("child0.log"), encoding: .utf8)) ?? "")")
            }
            let database = try SwiduxDatabase(path: path, migrations: CrashAtomicityTests.migrations)
            let file = try await database.hydrate(CrashAtomicityTests.tableA)
            for me in 0..<2 {
                let dump = try Data(contentsOf: URL(fileURLWithPath: directory.path("dump\(me).json")))
                let rows = try JSONDecoder().decode([CrashAtomicityTests.CrashRow].self, from: dump)
                #expect(rows.map(\.id) == file.ids, "round \(round), writer \(me): order")
                #expect(rows.sorted { $0.id < $1.id } == file.values.sorted { $0.id < $1.id }, "round \(round), writer \(me): values")
            }
            try database.close()
        }
    }
}

struct ChildState: Sendable {
    var a = EntityStore<CrashAtomicityTests.CrashRow>()
}

struct ChildReducer: SwiduxReducer {
    func reduce(state: inout ChildState, action: Never, environment: Void) -> Effect<Never>? {}
}
