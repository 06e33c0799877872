import Clocks
import Foundation
import GRDB
import SwiduxSQLite
import Testing

/// Issue 27, item 7: assigning an older copy of an `EntityStore` (a cancelled edit:
/// `backup = state.items; …; state.items = backup`), or another store, is persisted as the
/// difference between the store drained last and the new one: reopening the file gives
/// exactly the store's rows.
@MainActor
@Suite("Assigning a whole entity store is persisted")
struct StoreReplacementTests {
    enum Variant: CaseIterable, Sendable {
        /// The edits since the backup were flushed before it is assigned back.
        case flushedBeforeRestore
        /// They are still pending.
        case pendingAtRestore
        /// Something else (an undo step, a view) still holds the store drained last.
        case oldStoreStillHeld
        /// A store built anew, not a copy, is assigned.
        case freshStore
    }

    static func todo(_ id: Int, _ title: String, done: Bool = false) -> Todo {
        Todo(id: id, title: title, done: done, tags: [])
    }

    @Test("Reopening the file gives exactly the store's rows", arguments: Variant.allCases)
    func backupAssignedBack(variant: Variant) async throws {
        let directory = try TemporaryDirectory()
        let path = directory.path("app.sqlite")
        let database = try SwiduxDatabase(path: path, migrations: Schema.migrations)
        let persistence = PersistenceMiddleware<TestState>(
            writers: [database.stateWriter(for: \TestState.todos, table: Schema.todos)], clock: TestClock())
        var state = TestState()
        for id in 1...4 { state.todos[id] = Self.todo(id, "t\(id)") }
        persistence.afterReduce(state: &state)
        try await persistence.flush()

        let backup = variant == .freshStore
            ? EntityStore([Self.todo(4, "t4"), Self.todo(1, "fresh one"), Self.todo(9, "fresh nine")])
            : state.todos
        state.todos.modify(1) { $0.title = "edited" }
        persistence.afterReduce(state: &state)
        state.todos[2] = nil
        persistence.afterReduce(state: &state)
        state.todos[5] = Self.todo(5, "added")
        persistence.afterReduce(state: &state)
        state.todos.sort { $0.id > $1.id }
        persistence.afterReduce(state: &state)
        if variant != .pendingAtRestore { try await persistence.flush() }

        var held: EntityStore<Todo>? = variant == .oldStoreStillHeld ? state.todos : nil
        state.todos = backup                          // the cancelled edit
        persistence.afterReduce(state: &state)
        try await persistence.flush()
        held = nil
        _ = held

        let reopened = try SwiduxDatabase(path: path, migrations: Schema.migrations)
        #expect(try await reopened.hydrate(Schema.todos).values == state.todos.values)
        #expect(state.todos.values == backup.values)

        // And the store keeps saving from there.
        state.todos.modify(4) { $0.done = true }
        state.todos[6] = Self.todo(6, "later")
        persistence.afterReduce(state: &state)
        try await persistence.flush()
        #expect(try await reopened.hydrate(Schema.todos).values == state.todos.values)
        try reopened.close()
    }
}
