import Foundation

/// Navigation, filter, highlight and the input line (``UIReducer``); never undo steps.
enum UIAction: Equatable, Sendable, Codable {
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
    /// A status message, emitted after the events of the actions sent before it (e.g. how
    /// many items a paste added).
    case notice(String)
    /// A warning on the status line (e.g. why a typed text is refused; the text stays).
    case warning(String)
}
