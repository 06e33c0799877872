import Foundation

/// UI state: not persisted, not undoable.
struct UIState: Equatable, Sendable, Codable {
    var screen: AppScreen = .items
    /// The screen to go back to when help closes.
    var previousScreen: AppScreen = .items
    var currentListID: UUID?
    var filter: ItemFilter = .all
    /// The highlighted item on the item screen.
    var selectedItemID: UUID?
    /// The highlighted row on the list screen.
    var listCursor: Int = 0
    var input: InputMode?
    /// The text being typed for add/edit/tag/list input.
    var draft: String = ""
    /// The search text as typed.
    var searchText: String = ""
    /// The search text in effect (after the debounce).
    var searchQuery: String = ""

    nonisolated init() {}
}
