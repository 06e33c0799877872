import Foundation

/// Tagging items (``TagsReducer``).
enum TagsAction: Equatable, Sendable, Codable {
    /// Tags the item, creating the tag if no tag has that name.
    case add(itemID: UUID, name: String, tagID: UUID)
    case remove(itemID: UUID, tagID: UUID)
    /// Removes every tag from the item.
    case clear(itemID: UUID)
}
