import Foundation

/// A tag that items can carry (many-to-many through ``ItemTag``). Names are unique,
/// compared case-insensitively.
struct Tag: Identifiable, Equatable, Sendable, Codable {
    var id: UUID
    var name: String

    nonisolated init(id: UUID = UUID(), name: String) {
        self.id = id
        self.name = name
    }
}

/// The join entity between ``TodoItem`` and ``Tag``. Its id is derived from the pair,
/// so tagging an item twice with one tag is one row.
struct ItemTag: Identifiable, Equatable, Sendable, Codable {
    var id: String
    var itemID: UUID
    var tagID: UUID

    nonisolated init(itemID: UUID, tagID: UUID) {
        self.id = "\(itemID.uuidString)/\(tagID.uuidString)"
        self.itemID = itemID
        self.tagID = tagID
    }
}
