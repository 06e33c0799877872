import Foundation

/// UI state: not persisted, not undoable.
public struct UIState: Equatable, Sendable, Codable {
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
