import Foundation
import GRDB
import SwiduxSQLite

extension AppDatabase {
    /// The items in stored order, for hydration: the columns selected by position and
    /// decoded by index (not by name: at 100,000 items the name lookups cost more than the
    /// values), into an array sized once. The same order and values as
    /// `AppDatabase.items.fetchStore(db)`.
    static func fetchItems(_ db: Database) throws -> EntityStore<TodoItem> {
        let table = TodoItem.databaseTableName
        let count = try Int.fetchOne(db, sql: "SELECT count(*) FROM \(table)") ?? 0
        let statement = try db.cachedStatement(sql: """
            SELECT id, listID, title, isDone, createdAt FROM \(table) ORDER BY position, id
            """)
        var items: [TodoItem] = []
        items.reserveCapacity(count)
        let rows = try Row.fetchCursor(statement)
        do {
            while let row = try rows.next() {
                items.append(TodoItem(
                    id: try row.decode(atIndex: 0),
                    listID: try row.decode(atIndex: 1),
                    title: try row.decode(atIndex: 2),
                    isDone: try row.decode(atIndex: 3),
                    createdAt: try row.decode(atIndex: 4)
                ))
            }
        } catch let error as DatabaseError {
            throw error
        } catch {
            throw SwiduxDatabaseError(path: nil, cause: .undecodable(table: table), underlying: error)
        }
        return EntityStore(items)
    }
}
