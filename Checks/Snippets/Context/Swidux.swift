// What Swidux.md's example assumes: an app with items, a database of items.
struct Item: Identifiable, Equatable, Sendable {
    let id: UUID
    var title: String
}

struct AppState: Equatable {
    var items = EntityStore<Item>()
}

enum ItemAction: Sendable {
    case create(String)
}

enum AppAction: Sendable {
    case items(ItemAction)
}

struct AppEnvironment: Sendable {
    static let live = AppEnvironment()
}

struct AppReducer: SwiduxReducer {
    func reduce(state: inout AppState, action: AppAction, environment: AppEnvironment) -> Effect<AppAction>? {
        switch action {
        case .items(.create(let title)):
            let item = Item(id: UUID(), title: title)
            state.items[item.id] = item
        }
        return nil
    }
}

struct ItemDatabase: Sendable {
    func save(_ writes: [Item], deleting deletions: [Item.ID]) async throws {}
}

struct SnippetContext {
    let itemDB: ItemDatabase
}
