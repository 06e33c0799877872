@_exported import Swidux
import Foundation

/// The whole application state: persisted entity stores plus UI state.
///
/// Writers are registered referencing rows first (item tags, items, tags, lists), see ``AppDatabase``.
public struct AppState: Equatable, Sendable {
    public var lists = EntityStore<TodoList>()
    public var tags = EntityStore<Tag>()
    public var items = EntityStore<TodoItem>()
    public var itemTags = EntityStore<ItemTag>()
    public var ui = UIState()

    public nonisolated init(
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
