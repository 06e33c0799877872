// What DataProtectionAndAppGroups.md's fragments assume: the README's kind of to-do app,
// a database property the app opens, and its store.
struct Todo: Codable, Identifiable, Equatable, Sendable {
    var id: UUID
    var title: String
    var done = false
}

struct AppState: Equatable, Sendable {
    var todos = EntityStore<Todo>()
}

enum AppAction: Sendable {
    case refresh
}

enum AppDatabase {
    static let todos = EntityTable<Todo>(named: "todo")
    static let migrations = SwiduxMigrations { m in
        m.register("v1") { db in try db.createEntityTable(todos) }
    }
}

@MainActor
final class SnippetContext {
    let path = "/tmp/todos.sqlite"
    var database: SwiduxDatabase?
    let store: Store<AppState, AppAction>
    init(store: Store<AppState, AppAction>) { self.store = store }
}
