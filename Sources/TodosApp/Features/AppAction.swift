import Foundation

/// Every action of the app. Domain actions (`lists`, `items`, `tags`) change persisted
/// entities and are undoable; `search` and `ui` only change ``UIState``.
public enum AppAction: Equatable, Sendable {
    case lists(ListsAction)
    case items(ItemsAction)
    case tags(TagsAction)
    case search(SearchAction)
    case ui(UIAction)

}

extension AppAction: UndoableAction {
    /// Domain actions are undo steps; search, navigation and selection are not.
    public var undoPolicy: UndoPolicy {
        switch self {
        case .lists(.select): .skip
        case .lists, .items, .tags: .record
        case .search, .ui: .skip
        }
    }
}

public enum ListsAction: Equatable, Sendable {
    case add(id: UUID, name: String)
    case rename(id: UUID, name: String)
    /// Deletes the list with its items (and their tag links).
    case delete(id: UUID)
    case select(id: UUID)
}

public enum ItemsAction: Equatable, Sendable {
    case add(id: UUID, listID: UUID, title: String, tags: [String] = [])
    case setTitle(id: UUID, title: String)
    case toggle(id: UUID)
    case setDone(id: UUID, done: Bool)
    case delete(id: UUID)
    /// Moves the item `offset` places among the items of its list (negative: up).
    case move(id: UUID, offset: Int)
    case clearCompleted(listID: UUID)
}

public enum TagsAction: Equatable, Sendable {
    /// Tags the item, creating the tag if no tag has that name.
    case add(itemID: UUID, name: String, tagID: UUID)
    case remove(itemID: UUID, tagID: UUID)
    /// Removes every tag from the item.
    case clear(itemID: UUID)
}

public enum SearchAction: Equatable, Sendable {
    /// The search text as typed; the query applies after a debounce.
    case textChanged(String)
    /// The debounced query takes effect.
    case apply(String)
    case clear
}

public enum UIAction: Equatable, Sendable {
    case showScreen(AppScreen)
    case toggleHelp
    case setFilter(ItemFilter)
    case cycleFilter
    /// Moves the highlight on the current screen by `delta` rows.
    case moveCursor(Int)
    case selectItem(UUID?)
    case beginInput(InputMode, draft: String = "")
    case draftChanged(String)
    case endInput
}

/// One-shot events the app emits (not stored in state).
public enum AppEvent: Equatable, Sendable {
    case status(String)
    case error(String)
}
