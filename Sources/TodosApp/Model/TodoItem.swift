import Foundation

/// A to-do item; belongs to one ``TodoList`` through ``listID``. Its tags are ``ItemTag`` rows.
public struct TodoItem: Identifiable, Equatable, Sendable, Codable {
    public var id: UUID
    public var listID: UUID
    public var title: String
    public var isDone: Bool
    public var createdAt: Date

    public nonisolated init(id: UUID = UUID(), listID: UUID, title: String, isDone: Bool = false, createdAt: Date = Date()) {
        self.id = id
        self.listID = listID
        self.title = title
        self.isDone = isDone
        self.createdAt = createdAt
    }
}
