import Foundation

/// A named list of to-do items. Items reference their list by ``id``.
struct TodoList: Identifiable, Equatable, Sendable, Codable {
    var id: UUID
    var name: String

    nonisolated init(id: UUID = UUID(), name: String) {
        self.id = id
        self.name = name
    }
}
