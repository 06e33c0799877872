import SwiduxTesting

// A persisted feature: the todos live in an EntityStore that the PersistenceMiddleware drains.

struct Todo: Identifiable, Equatable, Sendable {
    let id: Int
    var title: String
    var isDone = false
}

struct TodoState: Equatable {
    var todos = EntityStore<Todo>()
    /// Set by a test middleware (TestStoreUndoAndMiddlewareTests); 0 otherwise.
    var stamp = 0
}

enum TodoAction: Equatable {
    case add(Todo)
    case rename(Int, String)
    case toggle(Int)
    case remove(Int)
    case sortByTitle
}

var todoReducer: Reduce<TodoState, TodoAction, Void> {
    Reduce { state, action, _ in
        switch action {
        case .add(let todo):
            state.todos[todo.id] = todo
        case .rename(let id, let title):
            state.todos.modify(id) { $0.title = title }
        case .toggle(let id):
            state.todos.modify(id) { $0.isDone.toggle() }
        case .remove(let id):
            state.todos[id] = nil
        case .sortByTitle:
            state.todos.sort { $0.title < $1.title }
        }
        return nil
    }
}
