import GRDB

// The entities map to real columns (GRDB records), so that the tables can carry
// foreign keys: todoItem.listID → todoList, itemTag.itemID → todoItem, itemTag.tagID → tag.

extension TodoList: FetchableRecord, PersistableRecord {
    public static var databaseTableName: String { "todoList" }

    /// The columns, plus `nameKey` (``ListName/key(_:)``, unique): two processes can't
    /// both create a list of one name.
    public func encode(to container: inout PersistenceContainer) throws {
        container["id"] = id
        container["name"] = name
        container["nameKey"] = ListName.key(name)
    }
}

extension TodoItem: FetchableRecord, PersistableRecord {
    public static var databaseTableName: String { "todoItem" }
}

extension Tag: FetchableRecord, PersistableRecord {
    public static var databaseTableName: String { "tag" }
}

extension ItemTag: FetchableRecord, PersistableRecord {
    public static var databaseTableName: String { "itemTag" }
}
