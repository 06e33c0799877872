import Foundation

/// Every action of the app. Domain actions (`lists`, `items`, `tags`) change persisted
/// entities and are undoable; `search` and `ui` only change ``UIState``. `Codable`, so that
/// sessions can be recorded (`todos --record FILE`) and replayed (`todos replay FILE`).
enum AppAction: Equatable, Sendable, Codable {
    case lists(ListsAction)
    case items(ItemsAction)
    case tags(TagsAction)
    case search(SearchAction)
    case ui(UIAction)
}
