@_exported import SwiduxSync

// What SwiduxSync.md's example assumes: lists and items in a database, a store, a token.
struct TodoList: Codable, Identifiable, Equatable, Sendable {
    var id: UUID
    var name: String
}

struct Item: Codable, Identifiable, Equatable, Sendable {
    var id: UUID
    var title: String
}

struct AppState: Equatable {
    var lists = EntityStore<TodoList>()
    var items = EntityStore<Item>()
}

enum AppAction: Sendable {
    case refresh
}

enum AppDatabase {
    static let lists = EntityTable<TodoList>(named: "list")
    static let items = EntityTable<Item>(named: "item")
    static let migrations = SwiduxMigrations { m in
        m.register("v1") { db in
            try db.createEntityTable(lists)
            try db.createEntityTable(items)
        }
    }
}

struct SnippetContext {
    let path: String
    let token: String
    let store: Store<AppState, AppAction>
}
