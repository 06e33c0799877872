// What ExternalChanges.md's fragments assume: the README's kind of to-do app, its file.
struct Todo: Codable, Identifiable, Equatable, Sendable {
    var id: UUID
    var title: String
    var done = false
}

struct AppState: Equatable {
    var todos = EntityStore<Todo>()
}

enum AppAction: Sendable {
    case refresh
}

struct AppEnvironment: Sendable {}

struct AppReducer: SwiduxReducer {
    func reduce(state: inout AppState, action: AppAction, environment: AppEnvironment) -> Effect<AppAction>? {
        nil
    }
}

enum AppDatabase {
    static let todos = EntityTable<Todo>(named: "todo")
    static let migrations = SwiduxMigrations { m in
        m.register("v1") { db in try db.createEntityTable(todos) }
    }
}

struct SnippetContext {
    let path: String
    let env: AppEnvironment
    let database: SwiduxDatabase
}
