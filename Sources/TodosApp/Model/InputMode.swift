import Foundation

/// What the input line is collecting, if anything.
enum InputMode: Equatable, Sendable, Codable {
    case addItem
    case editItem(UUID)
    case addTag(UUID)
    case search
    case addList
    case renameList(UUID)
}
