@_exported import Swidux
import Foundation

/// The whole application state: persisted entity stores plus UI state.
///
/// Writers are registered referencing rows first (item tags, items, tags, lists), see ``AppDatabase``.
struct AppState: Equatable, Sendable {
    var lists = EntityStore<TodoList>()
    var tags = EntityStore<Tag>()
    var items = EntityStore<TodoItem>()
    var itemTags = EntityStore<ItemTag>()
    var ui = UIState()

    nonisolated init(
        lists: EntityStore<TodoList> = [], tags: EntityStore<Tag> = [],
        items: EntityStore<TodoItem> = [], itemTags: EntityStore<ItemTag> = [],
        ui: UIState = UIState()
    ) {
        self.lists = lists
        self.tags = tags
        self.items = items
        self.itemTags = itemTags
        self.ui = ui
    }
}
