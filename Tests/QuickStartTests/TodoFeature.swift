import Foundation
import SwiduxSQLite   // re-exports Swidux

struct Todo: Codable, Identifiable, Equatable, Sendable {
    var id: UUID
    var title: String
    var done = false
}

struct TodoState: Equatable {
    var todos = EntityStore<Todo>()   // persisted: one row per to-do, in order
    var draft = ""                    // not persisted
}

enum TodoAction: Equatable, Sendable {
    case setDraft(String), add, toggle(Todo.ID), delete(Todo.ID)
}

struct TodoEnvironment {
    var uuid: @Sendable () -> UUID = { UUID() }
}

struct TodoReducer: SwiduxReducer {
    func reduce(state: inout TodoState, action: TodoAction, environment: TodoEnvironment) -> Effect<TodoAction>? {
        switch action {
        case .setDraft(let text):
            state.draft = text
        case .add:
            guard !state.draft.isEmpty else { return nil }
            let todo = Todo(id: environment.uuid(), title: state.draft)
            state.todos[todo.id] = todo   // written to SQLite 250 ms later, batched
            state.draft = ""
        case .toggle(let id):
            state.todos.modify(id) { $0.done.toggle() }
        case .delete(let id):
            state.todos[id] = nil
        }
        return nil
    }
}

enum TodoDatabase {
    static let todos = EntityTable<Todo>(named: "todo")
    static let migrations = SwiduxMigrations { m in
        m.register("v1") { db in try db.createEntityTable(todos) }
    }

    /// Opens (or creates) the database — in Application Support unless told otherwise —,
    /// loads the to-dos and returns the app's store. Opening, checking, migrating and
    /// loading run off the main actor: the app draws its launch screen meanwhile.
    @MainActor
    static func makeStore(at location: URL? = nil) async throws -> Store<TodoState, TodoAction> {
        let url = try location ?? FileManager.default.url(
            for: .applicationSupportDirectory, in: .userDomainMask, appropriateFor: nil, create: true
        ).appending(path: "todos.sqlite")
        try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
        let database = try await SwiduxDatabase.open(path: url.path, migrations: migrations)
        var state = TodoState()
        let persistence = try await database.persistence(hydratingInBackground: &state, [.entities(\.todos, in: todos)])
        return Store(initialState: state, reducer: TodoReducer(), environment: TodoEnvironment(), persistence: persistence)
    }
}
