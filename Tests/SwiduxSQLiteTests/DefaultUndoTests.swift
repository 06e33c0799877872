import Clocks
import Foundation
import SwiduxSQLite
import SwiduxTesting
import Testing

/// A store's `UndoMiddleware` with no part named records the entity stores the store
/// persists, nothing else: with another writer on the file and UI state in the store, undo
/// neither brings back a row the other writer deleted, nor removes one it added, nor puts
/// back the UI state.
@MainActor
@Suite("Default undo with another writer", .timeLimit(.minutes(2)))
struct DefaultUndoTests {
    struct UIState: Sendable {
        var todos = EntityStore<Todo>()
        var selection: Int?
    }

    enum UIAction: Sendable {
        case put(Todo)
        case select(Int?)
    }

    struct UIReducer: SwiduxReducer {
        func reduce(state: inout UIState, action: UIAction, environment: Void) -> Effect<UIAction>? {
            switch action {
            case .put(let todo): state.todos[todo.id] = todo
            case .select(let id): state.selection = id
            }
            return nil
        }
    }

    @Test("Undo keeps another writer's deletion and insertion, and the UI state")
    func undoLeavesOtherWritersRowsAndTheUIState() async throws {
        let directory = try TemporaryDirectory()
        let path = directory.path("app.sqlite")
        let database = try SwiduxDatabase(path: path, migrations: XSchema.migrations)
        let persistence = PersistenceMiddleware<UIState>(
            writers: [database.stateWriter(for: \.todos, table: XSchema.todos)], clock: TestClock())
        var state = UIState()
        state.todos = try await database.hydrate(XSchema.todos)
        let store = Store(initialState: state, reducer: UIReducer(), environment: (),
                          persistence: persistence, undo: UndoMiddleware(maxDepth: 20))
        try store.follow(database, every: .milliseconds(5))

        store.send(.put(todo(1, "one")))
        store.send(.select(1))
        store.send(.put(todo(3, "three")))
        store.send(.put(todo(3, "three edited")))
        try await persistence.flush()

        // Another writer deletes 3 and adds 2.
        let other = try await Follower(path: path, follow: false)
        other.store.send(.delete(3))
        other.store.send(.put(todo(2, "theirs")))
        try await other.persistence.flush()
        #expect(await eventually { store.state.todos[3] == nil && store.state.todos[2] != nil })
        store.send(.select(2))

        // The steps that changed only 3 went with it (no undo that does nothing is left).
        store.undo()   // the insertion of 1
        #expect(store.state.todos[3] == nil)
        #expect(store.state.todos.values == [todo(2, "theirs")])
        #expect(store.state.selection == 2)
        #expect(!store.canUndo)   // the selections recorded no step
        try await persistence.flush()
        #expect(try await other.file().todos.values == [todo(2, "theirs")])
    }
}
