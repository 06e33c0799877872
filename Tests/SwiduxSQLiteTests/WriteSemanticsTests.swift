import Foundation
import GRDB
import SwiduxSQLite
import Testing

/// What `EntityTable.write(_:in:)` does with rows other writers changed: rows an order
/// does not list, updates of deleted rows (delete wins), deletions of missing rows.
@Suite("EntityTable.write: order of unlisted rows, delete wins over a stale update")
struct WriteSemanticsTests {
    static func todo(_ id: Int, _ title: String? = nil) -> Todo {
        Todo(id: id, title: title ?? "\(id)", done: false, tags: [])
    }

    @discardableResult
    static func write(_ batch: WriteBatch<Todo>, to database: SwiduxDatabase) async throws -> WriteResult<Int> {
        try await database.writer.write { db in try Schema.todos.write(batch, in: db) }
    }

    static func storedIDs(_ database: SwiduxDatabase) async throws -> [Int] {
        try await database.hydrate(Schema.todos).ids
    }

    // MARK: - Order (issue 16 item 13)

    @Test("A row the order does not list keeps its relative place after the listed ones")
    func unlistedRowGoesAfterListed() async throws {
        let database = try SwiduxDatabase.inMemory(migrations: Schema.migrations)
        var todos = EntityStore<Todo>()
        for id in [1, 2, 3] { todos[id] = Self.todo(id) }
        try await Self.write(todos.drainBatch(), to: database)
        // Another writer inserts a row with plain SQL, second in the stored order.
        try await database.writer.write { db in
            try db.execute(sql: "INSERT INTO todo (id, position, data) VALUES (99, 1, ?)",
                           arguments: [String(decoding: try JSONEncoder().encode(Self.todo(99, "external")), as: UTF8.self)])
        }
        #expect(try await Self.storedIDs(database) == [1, 2, 99, 3])
        todos.sort { $0.id > $1.id }
        let batch = todos.drainBatch()
        #expect(batch.order == [3, 2, 1])
        try await Self.write(batch, to: database)
        #expect(try await Self.storedIDs(database) == [3, 2, 1, 99])
    }

    @Test("Several unlisted rows keep their relative order, whatever their positions")
    func unlistedRowsKeepRelativeOrder() async throws {
        let database = try SwiduxDatabase.inMemory(migrations: Schema.migrations)
        var todos = EntityStore<Todo>()
        for id in 1...4 { todos[id] = Self.todo(id) }
        try await Self.write(todos.drainBatch(), to: database)
        // Externals interleaved with the store's rows, one before all of them.
        try await database.writer.write { db in
            for (id, position) in [(50, -7), (51, 2), (52, 1)] {
                try db.execute(sql: "INSERT INTO todo (id, position, data) VALUES (?, ?, ?)",
                               arguments: [id, position, String(decoding: try JSONEncoder().encode(Self.todo(id)), as: UTF8.self)])
            }
        }
        #expect(try await Self.storedIDs(database) == [50, 1, 2, 52, 3, 51, 4])
        todos.sort { $0.id > $1.id }
        try await Self.write(todos.drainBatch(), to: database)
        #expect(try await Self.storedIDs(database) == [4, 3, 2, 1, 50, 52, 51])
        // An order listing an id that another writer deleted still places the rest.
        try await database.writer.write { db in try db.execute(sql: "DELETE FROM todo WHERE id = 2") }
        todos.sort { $0.id < $1.id }
        try await Self.write(todos.drainBatch(), to: database)
        #expect(try await Self.storedIDs(database) == [1, 3, 4, 50, 52, 51])
        // New rows still append after everything.
        todos[7] = Self.todo(7)
        try await Self.write(todos.drainBatch(), to: database)
        #expect(try await Self.storedIDs(database).last == 7)
    }

    // MARK: - Delete wins (issue 18 item 1, SQL side)

    @Test("JSON mapping: an update of a row deleted meanwhile is not re-inserted; it is reported vanished")
    func staleUpdateVanishesJSON() async throws {
        let database = try SwiduxDatabase.inMemory(migrations: Schema.migrations)
        var todos = EntityStore<Todo>()
        for id in [1, 2, 3] { todos[id] = Self.todo(id) }
        #expect(try await Self.write(todos.drainBatch(), to: database) == .none)
        // Another writer deletes 2.
        try await database.writer.write { db in try db.execute(sql: "DELETE FROM todo WHERE id = 2") }
        todos.modify(2) { $0.done = true }
        todos.modify(3) { $0.title = "three" }
        let changes = todos.drainChanges()
        let batch = WriteBatch(writes: changes.upserted.compactMap { todos[$0] }, insertions: [])
        let result = try await Self.write(batch, to: database)
        #expect(result.vanished == [2])
        let stored = try await database.hydrate(Schema.todos)
        #expect(stored.ids == [1, 3])
        #expect(stored[3]?.title == "three")
    }

    @Test("Record mapping: an update of a row deleted meanwhile is not re-inserted; it is reported vanished")
    func staleUpdateVanishesRecords() async throws {
        let database = try SwiduxDatabase.inMemory(migrations: Schema.migrations)
        let folders = [Folder(id: "a", name: "A"), Folder(id: "b", name: "B")]
        _ = try await database.writer.write { db in try Schema.folders.write(WriteBatch(writes: folders), in: db) }
        try await database.writer.write { db in try db.execute(sql: "DELETE FROM folder WHERE id = 'a'") }
        let renamed = [Folder(id: "a", name: "A2"), Folder(id: "b", name: "B2")]
        let result = try await database.writer.write { db in
            try Schema.folders.write(WriteBatch(writes: renamed, insertions: []), in: db)
        }
        #expect(result.vanished == ["a"])
        #expect(try await database.hydrate(Schema.folders).values == [Folder(id: "b", name: "B2")])
    }

    @Test("An update keeps the row's position; an insertion of an existing id stays an upsert")
    func updateKeepsPosition() async throws {
        let database = try SwiduxDatabase.inMemory(migrations: Schema.migrations)
        var todos = EntityStore<Todo>()
        for id in [1, 2, 3] { todos[id] = Self.todo(id) }
        try await Self.write(todos.drainBatch(), to: database)
        let result = try await Self.write(
            WriteBatch(writes: [Self.todo(1, "one"), Self.todo(4, "four"), Self.todo(2, "two")], insertions: [4, 2]),
            to: database)
        #expect(result == .none)
        let stored = try await database.hydrate(Schema.todos)
        #expect(stored.ids == [1, 2, 3, 4])
        #expect(stored.values.map(\.title) == ["one", "two", "3", "four"])
    }

    @Test("A deletion that finds no row is reported vanished; one that deletes is not")
    func deletionOfMissingRowVanishes() async throws {
        let database = try SwiduxDatabase.inMemory(migrations: Schema.migrations)
        try await Self.write(WriteBatch(writes: [Self.todo(1), Self.todo(2)]), to: database)
        let result = try await Self.write(WriteBatch(deletions: [2, 8]), to: database)
        #expect(result.vanished == [8])
        #expect(try await Self.storedIDs(database) == [1])
    }

    @Test("Through the middleware's atomic path the result is returned by the writer's apply closure")
    func stagedThroughPerformAtomically() async throws {
        let database = try SwiduxDatabase.inMemory(migrations: Schema.migrations)
        try await Self.write(WriteBatch(writes: [Self.todo(1)]), to: database)
        try await database.writer.write { db in try db.execute(sql: "DELETE FROM todo") }
        let box = ResultBox()
        try await database.performAtomically([{ db in
            box.set(try Schema.todos.write(WriteBatch(writes: [Self.todo(1, "stale")], insertions: []), in: db))
        }])
        #expect(box.value?.vanished == [1])
        #expect(try await Self.storedIDs(database).isEmpty)
    }
}

final class ResultBox: @unchecked Sendable {
    private let lock = LockedValue(())
    private var stored: WriteResult<Int>?
    func set(_ value: WriteResult<Int>) { lock.withLock { _ in stored = value } }
    var value: WriteResult<Int>? { lock.withLock { _ in stored } }
}
