import Clocks
import Foundation
import GRDB
import SwiduxSQLite
import SwiduxTestSupport
import Testing

@MainActor
@Suite("Through PersistenceMiddleware")
struct MiddlewareIntegrationTests {
    static func middleware(_ database: SwiduxDatabase) -> PersistenceMiddleware<TestState> {
        PersistenceMiddleware(
            writers: [
                database.stateWriter(for: \.todos, table: Schema.todos),
                database.stateWriter(for: \.notes, table: Schema.notes),
            ],
            clock: TestClock()  // never advanced: only explicit flush() writes
        )
    }

    @Test("Random changes flushed by the middleware reopen identical", arguments: [11, 12, 13] as [UInt64])
    func randomChangesThroughMiddleware(seed: UInt64) async throws {
        let directory = try TemporaryDirectory()
        let path = directory.path("app.sqlite")
        var rng = SeededGenerator(seed: seed)
        var state = TestState()
        var nextID = 0
        var deleted: [Int] = []
        let database = try SwiduxDatabase(path: path, migrations: Schema.migrations)
        let persistence = Self.middleware(database)

        for _ in 0..<500 {
            RoundTripTests.mutate(&state, &rng, nextID: &nextID, deleted: &deleted)
            persistence.afterReduce(state: &state)
            if Int.random(in: 0..<12, using: &rng) == 0 { try await persistence.flush() }
        }
        try await persistence.flush()
        #expect(!persistence.hasPendingWrites)
        try database.close()

        let reopened = try SwiduxDatabase(path: path, migrations: Schema.migrations)
        let (todos, notes) = try await reopened.hydrateAll(Schema.todos, Schema.notes)
        #expect(todos.values == state.todos.values, "seed \(seed)")
        #expect(notes.values == state.notes.values, "seed \(seed)")
        try reopened.close()
    }

    @Test("Delete and re-insert in two reduces before one flush: stored at the end")
    func deleteThenReinsertAcrossReduces() async throws {
        let database = try SwiduxDatabase.inMemory(migrations: Schema.migrations)
        let persistence = Self.middleware(database)
        var state = TestState()
        for id in 0..<3 { state.todos[id] = Todo(id: id, title: "\(id)", done: false, tags: []) }
        persistence.afterReduce(state: &state)
        try await persistence.flush()
        state.todos[0] = nil
        persistence.afterReduce(state: &state)
        state.todos[0] = Todo(id: 0, title: "back", done: false, tags: [])
        persistence.afterReduce(state: &state)
        try await persistence.flush()
        #expect(try await database.hydrate(Schema.todos).values == state.todos.values)
    }

    @Test("An entity inserted and deleted between two flushes is not reported as deleted by another writer")
    func insertedAndDeletedBeforeAFlushWritesNothing() async throws {
        let database = try SwiduxDatabase.inMemory(migrations: Schema.migrations)
        let log = CapturedLog(minimum: .trace)
        let persistence = PersistenceMiddleware<TestState>(
            writers: [database.stateWriter(for: \.todos, table: Schema.todos), database.stateWriter(for: \.notes, table: Schema.notes)],
            clock: TestClock(), logger: log.logger)
        let reported = VanishedLog()
        persistence.onVanished = { reported.append($0.ids.compactMap { $0 as? Int }) }
        var state = TestState()
        state.todos[1] = Todo(id: 1, title: "kept", done: false, tags: [])
        persistence.afterReduce(state: &state)
        try await persistence.flush()

        // Two reduces, as two actions of an app (add, then delete) within one window.
        state.todos[2] = Todo(id: 2, title: "short-lived", done: false, tags: [])
        persistence.afterReduce(state: &state)
        state.todos[2] = nil
        persistence.afterReduce(state: &state)
        try await persistence.flush()

        #expect(reported.ids.isEmpty)
        #expect(!log.messages.contains { $0.contains("deleted by another writer") }, "\(log.messages)")
        #expect(try await database.hydrate(Schema.todos).values == [Todo(id: 1, title: "kept", done: false, tags: [])])
    }

    @Test("Delete wins end to end: another process deletes a row, the store's later update does not bring it back")
    func deleteWinsThroughTheMiddleware() async throws {
        let directory = try TemporaryDirectory()
        let path = directory.path("app.sqlite")
        let seed = try SwiduxDatabase(path: path, migrations: Schema.migrations)
        try await seed.performAtomically([{ db in
            try Schema.todos.write(WriteBatch(writes: (1...3).map { Todo(id: $0, title: "\($0)", done: false, tags: []) }), in: db)
        }])
        try seed.close()

        let database = try SwiduxDatabase(path: path, migrations: Schema.migrations, access: .existing)
        let persistence = Self.middleware(database)
        let reported = VanishedLog()
        persistence.onVanished = { reported.append($0.ids.compactMap { $0 as? Int }) }
        var state = TestState()
        state.todos = try await database.hydrate(Schema.todos)

        // Another process deletes 2 while this store still shows it.
        let other = try SwiduxDatabase(path: path, migrations: Schema.migrations, access: .existing)
        try await other.performAtomically([{ db in try Schema.todos.write(WriteBatch(deletions: [2]), in: db) }])
        try other.close()

        state.todos.modify(2) { $0.done = true }
        state.todos.modify(3) { $0.title = "three" }
        state.todos[4] = Todo(id: 4, title: "four", done: false, tags: [])
        persistence.afterReduce(state: &state)
        try await persistence.flush()

        let stored = try await database.hydrate(Schema.todos)
        #expect(stored.ids == [1, 3, 4])
        #expect(stored[3]?.title == "three")
        #expect(reported.ids == [2])
        persistence.afterReduce(state: &state)
        #expect(state.todos[2] == nil, "the store learns the deletion")
        #expect(!persistence.hasPendingWrites, "nothing written back")
        try database.close()
    }

    @Test("One flush is one transaction across all writers of a database")
    func oneTransactionPerFlush() async throws {
        let database = try SwiduxDatabase.inMemory(migrations: Schema.migrations)
        let commits = CommitCounter()
        database.writer.add(transactionObserver: commits)
        let persistence = Self.middleware(database)
        var state = TestState()
        for id in 0..<50 { state.todos[id] = Todo(id: id, title: "\(id)", done: false, tags: []) }
        for _ in 0..<20 { let note = Note(id: UUID(), text: "n", pinned: false); state.notes[note.id] = note }
        persistence.afterReduce(state: &state)
        try await persistence.flush()
        #expect(commits.count == 1)
        state.todos.sort { $0.id > $1.id }
        state.notes.removeAll()
        persistence.afterReduce(state: &state)
        try await persistence.flush()
        #expect(commits.count == 2)
        #expect(try await database.hydrate(Schema.todos).values == state.todos.values)
        #expect(try await database.hydrate(Schema.notes).isEmpty)
    }
}

/// Counts committed transactions that changed something.
final class CommitCounter: TransactionObserver, @unchecked Sendable {
    private let lock = LockedValue(())
    private var commits = 0
    private var changed = false
    var count: Int { lock.withLock { _ in commits } }
    func observes(eventsOfKind eventKind: DatabaseEventKind) -> Bool { true }
    func databaseDidChange(with event: DatabaseEvent) { lock.withLock { _ in changed = true } }
    func databaseDidCommit(_ db: Database) { lock.withLock { _ in if changed { commits += 1 }; changed = false } }
    func databaseDidRollback(_ db: Database) { lock.withLock { _ in changed = false } }
}

@MainActor
final class VanishedLog {
    private(set) var ids: [Int] = []
    func append(_ more: [Int]) { ids += more }
}
