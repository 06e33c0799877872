import Logging
import SwiftUI

// What Persistence.md's fragments assume: an app with lists, items and tags, a database
// that saves batches, a hydrated state, a store, a list view.
struct TodoList: Identifiable, Equatable, Sendable {
    let id: UUID
    var name: String
}

struct Item: Identifiable, Equatable, Sendable {
    let id: UUID
    var title: String
}

struct Tag: Identifiable, Equatable, Sendable {
    let id: UUID
    var name: String
}

struct AppState: Equatable {
    var lists = EntityStore<TodoList>()
    var items = EntityStore<Item>()
    var tags = EntityStore<Tag>()
    var title = ""
    var selection: Item.ID?
}

enum ItemAction: Sendable {
    case rename(Item.ID, String)
}

enum UIAction: Sendable {
    case select(Item.ID)
}

enum AppAction: Sendable, UndoableAction {
    case items(ItemAction)
    case ui(UIAction)

    var undoPolicy: UndoPolicy {
        if case .ui = self { .skip } else { .record }
    }
}

struct AppEnvironment: Sendable {
    static let live = AppEnvironment()
}

struct AppReducer: SwiduxReducer {
    func reduce(state: inout AppState, action: AppAction, environment: AppEnvironment) -> Effect<AppAction>? {
        switch action {
        case .items(.rename(let id, let title)):
            state.items.modify(id) { $0.title = title }
        case .ui(.select(let id)):
            state.selection = id
        }
        return nil
    }
}

struct Database: Sendable {
    func save<Entity: Identifiable & Sendable>(_ writes: [Entity], deleting deletions: [Entity.ID]) async throws {}
}

struct ItemList: View {
    let store: Store<AppState, AppAction>
    var body: some View { EmptyView() }
}

struct SnippetContext {
    let db: Database
    let hydrated: AppState
    let env: AppEnvironment
    let store: Store<AppState, AppAction>
    let persistence: PersistenceMiddleware<AppState>
    let logger: Logger
    let id: Item.ID
}
