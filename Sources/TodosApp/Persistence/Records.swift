import GRDB

// The entities map to real columns (GRDB records), so that the tables can carry
// foreign keys: todoItem.listID → todoList, itemTag.itemID → todoItem, itemTag.tagID → tag.

extension TodoList: FetchableRecord, PersistableRecord {
    public static var databaseTableName: String { "todoList" }
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
