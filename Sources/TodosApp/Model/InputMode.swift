import Foundation

/// What the input line is collecting, if anything.
public enum InputMode: Equatable, Sendable {
    case addItem
    case editItem(UUID)
    case addTag(UUID)
    case search
    case addList
    case renameList(UUID)
}
