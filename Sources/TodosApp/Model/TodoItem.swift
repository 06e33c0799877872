import Foundation

/// A to-do item; belongs to one ``TodoList`` through ``listID``. Its tags are ``ItemTag`` rows.
struct TodoItem: Identifiable, Equatable, Sendable, Codable {
    var id: UUID
    var listID: UUID
    var title: String
    var isDone: Bool
    var createdAt: Date

    nonisolated init(id: UUID = UUID(), listID: UUID, title: String, isDone: Bool = false, createdAt: Date = Date()) {
        self.id = id
        self.listID = listID
        self.title = title
        self.isDone = isDone
        self.createdAt = createdAt
    }
}
