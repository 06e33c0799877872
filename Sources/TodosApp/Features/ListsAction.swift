import Foundation

/// Creating, renaming, deleting and selecting lists (``ListsReducer``).
enum ListsAction: Equatable, Sendable, Codable {
    case add(id: UUID, name: String)
    case rename(id: UUID, name: String)
    /// Deletes the list with its items (and their tag links).
    case delete(id: UUID)
    case select(id: UUID)
}
