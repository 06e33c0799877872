@_exported import Swidux
import Foundation

/// The whole application state: persisted entity stores plus UI state.
///
/// Writers are registered leaves first (lists, tags, items, item tags), see ``AppDatabase``.
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

/// Which items the item screen shows.
public enum ItemFilter: String, CaseIterable, Equatable, Sendable, Codable {
    case all, active, completed

    /// The next filter in the cycle all → active → completed → all.
    public var next: ItemFilter {
        switch self {
        case .all: .active
        case .active: .completed
        case .completed: .all
        }
    }
}

/// The screens of the terminal UI (navigation lives in state).
public enum AppScreen: Equatable, Sendable {
    case items, lists, help
}

/// What the input line is collecting, if anything.
public enum InputMode: Equatable, Sendable {
    case addItem
    case editItem(UUID)
    case addTag(UUID)
    case search
    case addList
    case renameList(UUID)
}

/// UI state: not persisted, not undoable.
public struct UIState: Equatable, Sendable {
    public var screen: AppScreen = .items
    /// The screen to go back to when help closes.
    public var previousScreen: AppScreen = .items
    public var currentListID: UUID?
    public var filter: ItemFilter = .all
    /// The highlighted item on the item screen.
    public var selectedItemID: UUID?
    /// The highlighted row on the list screen.
    public var listCursor: Int = 0
    public var input: InputMode?
    /// The text being typed for add/edit/tag/list input.
    public var draft: String = ""
    /// The search text as typed.
    public var searchText: String = ""
    /// The search text in effect (after the debounce).
    public var searchQuery: String = ""

    public nonisolated init() {}
}
