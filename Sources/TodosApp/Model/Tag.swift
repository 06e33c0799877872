import Foundation

/// A tag that items can carry (many-to-many through ``ItemTag``). Names are unique,
/// compared case-insensitively.
public struct Tag: Identifiable, Equatable, Sendable, Codable {
    public var id: UUID
    public var name: String

    public nonisolated init(id: UUID = UUID(), name: String) {
        self.id = id
        self.name = name
    }
}

/// The join entity between ``TodoItem`` and ``Tag``. Its id is derived from the pair,
/// so tagging an item twice with one tag is one row.
public struct ItemTag: Identifiable, Equatable, Sendable, Codable {
    public var id: String
    public var itemID: UUID
    public var tagID: UUID

    public nonisolated init(itemID: UUID, tagID: UUID) {
        self.id = "\(itemID.uuidString)/\(tagID.uuidString)"
        self.itemID = itemID
        self.tagID = tagID
    }
}
