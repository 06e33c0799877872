// What RecordingAndReplaying.md's fragments assume: an app with lists and items, a UI
// part, an environment that reads the clock and makes ids, and its undo set-up.
struct TodoList: Codable, Identifiable, Equatable, Sendable {
    var id: UUID
    var name: String
}

struct TodoItem: Codable, Identifiable, Equatable, Sendable {
    var id: UUID
    var title: String
    var createdAt: Date
}

struct UIState: Codable, Equatable, Sendable {
    var search = ""
}

struct AppState: Equatable, Sendable {
    var items = EntityStore<TodoItem>()
    var lists = EntityStore<TodoList>()
    var ui = UIState()
}

struct AppEnvironment: Sendable {
    var now: @Sendable () -> Date
    var uuid: @Sendable () -> UUID
}

struct AppReducer: SwiduxReducer {
    func reduce(state: inout AppState, action: AppAction, environment: AppEnvironment) -> Effect<AppAction>? {
        if case .addItem(let title) = action {
            let id = environment.uuid()
            state.items[id] = TodoItem(id: id, title: title, createdAt: environment.now())
        }
        return nil
    }
}

enum AppUndo {
    @MainActor static func make() -> UndoMiddleware<AppState> {
        UndoMiddleware(maxDepth: 100, recording: \.items, \.lists)
    }
}

@MainActor
struct SnippetContext {
    let state: AppState
    let persistence: PersistenceMiddleware<AppState>
    let undo: UndoMiddleware<AppState>
}
