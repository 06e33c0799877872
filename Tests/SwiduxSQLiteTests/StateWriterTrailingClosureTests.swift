import Clocks
import Foundation
import GRDB
import SwiduxSQLite
import Testing

/// Issue 28, item 11: the transactional `StateWriter` with a trailing closure of several
/// statements compiles (it was "ambiguous use of 'init'": `apply:` beside `stage:`). A body
/// that returns nothing is the `stage:` form; one that returns a `WriteResult` reports back.
@MainActor
@Suite("StateWriter trailing closures")
struct StateWriterTrailingClosureTests {
    final class Log: @unchecked Sendable {
        private let lock = LockedValue(())
        private var _batches = 0
        func count() { lock.withLock { _ in _batches += 1 } }
        var batches: Int { lock.withLock { _ in _batches } }
    }

    @Test("A multi-statement trailing closure that returns nothing stages the batch")
    func multiStatementStage() async throws {
        let database = try SwiduxDatabase.inMemory(migrations: Schema.migrations)
        let log = Log()
        let writer = StateWriter(keyPath: \TestState.todos, backend: database) { db, batch in
            log.count()
            let table = Schema.todos
            try table.write(batch, in: db)
        }
        let persistence = PersistenceMiddleware<TestState>(writers: [writer], clock: TestClock())
        var state = TestState()
        state.todos[1] = Todo(id: 1, title: "one", done: false, tags: [])
        persistence.afterReduce(state: &state)
        try await persistence.flush()
        #expect(log.batches == 1)
        #expect(try await database.hydrate(Schema.todos).values == state.todos.values)
    }

    @Test("A multi-statement trailing closure that returns a WriteResult reports back")
    func multiStatementApply() async throws {
        let database = try SwiduxDatabase.inMemory(migrations: Schema.migrations)
        let log = Log()
        let writer = StateWriter(keyPath: \TestState.todos, backend: database) { db, batch in
            log.count()
            let result = try Schema.todos.write(batch, in: db)
            return result
        }
        let persistence = PersistenceMiddleware<TestState>(writers: [writer], clock: TestClock())
        var vanished: [VanishedEntities] = []
        persistence.onVanished = { vanished.append($0) }
        var state = TestState()
        state.todos[1] = Todo(id: 1, title: "one", done: false, tags: [])
        persistence.afterReduce(state: &state)
        try await persistence.flush()
        try await database.writer.write { db in try db.execute(sql: "DELETE FROM todo") }
        state.todos.modify(1) { $0.done = true }
        persistence.afterReduce(state: &state)
        try await persistence.flush()
        #expect(log.batches == 2)
        #expect(vanished.first?.ids.compactMap { $0 as? Int } == [1])
    }

    @Test("The direct form: a multi-statement trailing closure, with and without a result")
    func directForms() async throws {
        let log = Log()
        let plain = StateWriter(keyPath: \TestState.todos) { (batch: WriteBatch<Todo>) in
            log.count()
            _ = batch.writes.count
        }
        let reporting = StateWriter(keyPath: \TestState.notes) { (batch: WriteBatch<Note>) in
            log.count()
            return WriteResult(vanished: batch.writes.map(\.id))
        }
        let persistence = PersistenceMiddleware<TestState>(writers: [plain, reporting], clock: TestClock())
        var vanished: [VanishedEntities] = []
        persistence.onVanished = { vanished.append($0) }
        var state = TestState()
        state.todos[1] = Todo(id: 1, title: "one", done: false, tags: [])
        let note = Note(id: UUID(), text: "n", pinned: false)
        state.notes[note.id] = note
        persistence.afterReduce(state: &state)
        try await persistence.flush()
        #expect(log.batches == 2)
        #expect(vanished.count == 1 && vanished.first?.writer.contains("notes") == true)
    }
}
