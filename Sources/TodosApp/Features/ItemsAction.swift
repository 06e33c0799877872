import Foundation

/// Item changes (``ItemsReducer``). Ids come with the action so callers know them.
enum ItemsAction: Equatable, Sendable, Codable {
    case add(id: UUID, listID: UUID, title: String, tags: [String] = [])
    case setTitle(id: UUID, title: String)
    case toggle(id: UUID)
    case setDone(id: UUID, done: Bool)
    case delete(id: UUID)
    /// Moves the item `offset` places among the items of its list (negative: up).
    case move(id: UUID, offset: Int)
    case clearCompleted(listID: UUID)
    /// The item as the database holds it now (another process changed it): applied
    /// without being written back, and not an undo step.
    case refreshed(TodoItem)
}
