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
