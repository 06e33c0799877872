import Foundation
import GRDB

// The entities map to real columns (GRDB records), so that the tables can carry
// foreign keys: todoItem.listID → todoList, itemTag.itemID → todoItem, itemTag.tagID → tag.

extension TodoList: FetchableRecord, PersistableRecord {
    static var databaseTableName: String { "todoList" }

    /// The columns, plus `nameKey` (``ListName/key(_:)``, unique): two processes can't
    /// both create a list of one name.
    func encode(to container: inout PersistenceContainer) throws {
        container["id"] = id
        container["name"] = name
        container["nameKey"] = ListName.key(name)
    }
}

extension TodoItem: FetchableRecord, PersistableRecord {
    static var databaseTableName: String { "todoItem" }

    /// Decodes the columns directly (hydrating 100,000 items through `Decodable` takes
    /// several times longer).
    init(row: Row) throws {
        self.init(
            id: try row.decode(UUID.self, forColumn: "id"),
            listID: try row.decode(UUID.self, forColumn: "listID"),
            title: try row.decode(String.self, forColumn: "title"),
            isDone: try row.decode(Bool.self, forColumn: "isDone"),
            createdAt: try row.decode(Date.self, forColumn: "createdAt")
        )
    }
}

extension Tag: FetchableRecord, PersistableRecord {
    static var databaseTableName: String { "tag" }
}

extension ItemTag: FetchableRecord, PersistableRecord {
    static var databaseTableName: String { "itemTag" }

    /// Decodes the columns directly, as ``TodoItem`` does.
    init(row: Row) throws {
        self.init(itemID: try row.decode(UUID.self, forColumn: "itemID"), tagID: try row.decode(UUID.self, forColumn: "tagID"))
        id = try row.decode(String.self, forColumn: "id")
    }
}
