import Foundation

/// A named list of to-do items. Items reference their list by ``id``.
public struct TodoList: Identifiable, Equatable, Sendable, Codable {
    public var id: UUID
    public var name: String

    public nonisolated init(id: UUID = UUID(), name: String) {
        self.id = id
        self.name = name
    }
}
