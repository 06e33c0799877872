import Foundation
import GRDB
import SwiduxTesting
import Testing
@testable import TodosApp

/// `AppDatabase.fetchItems` (the table read in its own order, sorted only when needed,
/// decoded by column index) gives what the generic `EntityTable.fetchStore` gives.
@Suite struct ItemHydrationTests {
    @Test("Same items in the same order as fetchStore, whatever the rows' positions (ties included)")
    func sameAsFetchStore() throws {
        let database = try AppDatabase.inMemory()
        try database.ensureDefaultList()
        var rng = SeededRandomNumberGenerator(seed: 19)
        try database.database.writer.write { db in
            let listID = try DatabaseValue.fetchOne(db, sql: "SELECT id FROM todoList")!
            for index in 0..<300 {
                // Positions out of insertion order, some equal (then the id decides).
                let position = Int.random(in: 0..<120, using: &rng)
                try db.execute(
                    sql: "INSERT INTO todoItem (id, position, listID, title, isDone, createdAt) VALUES (?, ?, ?, ?, ?, ?)",
                    arguments: [UUID(), position, listID, "Item \(index)", index % 3 == 0,
                                Date(timeIntervalSince1970: 1_790_000_000 + Double(index) * 0.001)])
            }
        }
        let (fast, generic) = try database.database.writer.read { db in
            (try AppDatabase.fetchItems(db), try AppDatabase.items.fetchStore(db))
        }
        #expect(fast.count == 300)
        #expect(fast.values == generic.values)
    }

    @Test("Rows already in stored order are taken as they are")
    func inOrder() throws {
        let database = try AppDatabase.inMemory()
        try database.ensureDefaultList()
        let list = try database.database.writer.read { db in try AppDatabase.lists.fetchStore(db) }[position: 0]
        let items = (0..<50).map { TodoItem(listID: list.id, title: "Item \($0)", isDone: $0 % 2 == 0, createdAt: Date(timeIntervalSince1970: 1_790_000_000)) }
        try database.database.writer.write { db in
            for (position, item) in items.enumerated() {
                try db.execute(
                    sql: "INSERT INTO todoItem (id, position, listID, title, isDone, createdAt) VALUES (?, ?, ?, ?, ?, ?)",
                    arguments: [item.id, position, item.listID, item.title, item.isDone, item.createdAt])
            }
        }
        let fast = try database.database.writer.read { db in try AppDatabase.fetchItems(db) }
        #expect(fast.values == items)
    }
}
