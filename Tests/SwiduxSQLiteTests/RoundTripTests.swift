import Foundation
import GRDB
import SwiduxSQLite
import Testing

@Suite("Round trip: flush, close, reopen, hydrate")
struct RoundTripTests {
    /// Applies one random mutation to `todos` or `notes`.
    static func mutate(_ state: inout TestState, _ rng: inout SeededGenerator, nextID: inout Int, deleted: inout [Int]) {
        let roll = Int.random(in: 0..<100, using: &rng)
        switch roll {
        case 0..<30:
            let id: Int
            if !deleted.isEmpty, Bool.random(using: &rng) {
                id = deleted.remove(at: Int.random(in: 0..<deleted.count, using: &rng))
            } else {
                id = nextID; nextID += 1
            }
            state.todos[id] = Todo(id: id, title: "todo \(Int.random(in: 0..<1000, using: &rng))",
                                   done: Bool.random(using: &rng), tags: ["t\(roll)"])
        case 30..<45:
            if let todo = state.todos.values.randomElement(using: &rng) {
                state.todos.modify(todo.id) { $0.done.toggle(); $0.title += "!" }
            }
        case 45..<58:
            if let todo = state.todos.values.randomElement(using: &rng) {
                state.todos[todo.id] = nil
                deleted.append(todo.id)
            }
        case 58..<61:
            let modulus = Int.random(in: 3...7, using: &rng)
            let removed = state.todos.values.filter { $0.id % modulus == 0 }.map(\.id)
            state.todos.removeAll { $0.id % modulus == 0 }
            deleted += removed
        case 61..<64:
            if Bool.random(using: &rng) {
                state.todos.sort { ($0.title, $0.id) < ($1.title, $1.id) }
            } else {
                state.todos.sort { $0.id > $1.id }
            }
        case 64..<68:
            if state.todos.count > 1 {
                let offsets = IndexSet((0..<Int.random(in: 1...3, using: &rng)).map { _ in
                    Int.random(in: 0..<state.todos.count, using: &rng)
                })
                state.todos.move(fromOffsets: offsets, toOffset: Int.random(in: 0...state.todos.count, using: &rng))
            }
        case 68..<85:
            let note = Note(id: UUID(), text: "note \(roll)", pinned: Bool.random(using: &rng))
            state.notes[note.id] = note
        case 85..<92:
            if let note = state.notes.values.randomElement(using: &rng) {
                state.notes.modify(note.id) { $0.pinned.toggle() }
            }
        default:
            if let note = state.notes.values.randomElement(using: &rng) {
                state.notes[note.id] = nil
            }
        }
    }

    static func flush(_ state: inout TestState, to database: SwiduxDatabase) async throws {
        let todos = state.todos.drainBatch(), notes = state.notes.drainBatch()
        try await database.performAtomically([
            { db in try Schema.todos.write(todos, in: db) },
            { db in try Schema.notes.write(notes, in: db) },
        ])
    }

    @Test("Random changes flushed through the backend reopen identical, order included", arguments: [1, 2, 3, 4, 5] as [UInt64])
    func randomChangesSurviveReopen(seed: UInt64) async throws {
        let directory = try TemporaryDirectory()
        let path = directory.path("app.sqlite")
        var rng = SeededGenerator(seed: seed)
        var state = TestState()
        var nextID = 0
        var deleted: [Int] = []

        var database = try SwiduxDatabase(path: path, migrations: Schema.migrations)
        for step in 0..<600 {
            Self.mutate(&state, &rng, nextID: &nextID, deleted: &deleted)
            if Int.random(in: 0..<10, using: &rng) == 0 {
                try await Self.flush(&state, to: database)
            }
            if step % 200 == 199 {
                // Reopen mid-sequence too: positions must keep working after a restart.
                try await Self.flush(&state, to: database)
                try database.close()
                database = try SwiduxDatabase(path: path, migrations: Schema.migrations)
                #expect(try await database.hydrate(Schema.todos).values == state.todos.values, "seed \(seed) step \(step)")
            }
        }
        try await Self.flush(&state, to: database)
        try database.close()

        let reopened = try SwiduxDatabase(path: path, migrations: Schema.migrations)
        let (todos, notes) = try await reopened.hydrateAll(Schema.todos, Schema.notes)
        #expect(todos.values == state.todos.values, "seed \(seed)")
        #expect(notes.values == state.notes.values, "seed \(seed)")
        #expect(todos.changes.isEmpty && notes.changes.isEmpty, "hydration records nothing")
        try reopened.close()
    }

    @Test("Hydration returns stored order; new rows append after the largest position")
    func hydrationOrder() async throws {
        let database = try SwiduxDatabase.inMemory(migrations: Schema.migrations)
        var todos = EntityStore<Todo>()
        for id in [5, 3, 9] { todos[id] = Todo(id: id, title: "\(id)", done: false, tags: []) }
        let first = todos.drainBatch()
        try await database.performAtomically([{ db in try Schema.todos.write(first, in: db) }])
        #expect(try await database.hydrate(Schema.todos).ids == [5, 3, 9])

        todos.sort { $0.id < $1.id }
        todos[1] = Todo(id: 1, title: "1", done: false, tags: [])
        let second = todos.drainBatch()
        #expect(second.order == [3, 5, 9, 1])
        try await database.performAtomically([{ db in try Schema.todos.write(second, in: db) }])
        #expect(try await database.hydrate(Schema.todos).ids == [3, 5, 9, 1])

        todos[0] = Todo(id: 0, title: "0", done: true, tags: ["a"])
        todos[3] = nil
        let third = todos.drainBatch()
        try await database.performAtomically([{ db in try Schema.todos.write(third, in: db) }])
        #expect(try await database.hydrate(Schema.todos).values == todos.values)
    }

    @Test("Record mapping stores real columns and round-trips")
    func recordMappingColumns() async throws {
        let database = try SwiduxDatabase.inMemory(migrations: Schema.migrations)
        var folders = EntityStore<Folder>([Folder(id: "f", name: "Inbox")])
        var items = EntityStore<Item>()
        items["b"] = Item(id: "b", folderId: "f", title: "B", rank: nil)
        items["a"] = Item(id: "a", folderId: "f", title: "A", rank: 2.5)
        folders["f"] = Folder(id: "f", name: "Inbox")
        // `folders` was hydrated (no changes): write it whole.
        let folderBatch = WriteBatch(writes: folders.values)
        let itemBatch = items.drainBatch()
        try await database.performAtomically([
            { db in try Schema.folders.write(folderBatch, in: db) },
            { db in try Schema.items.write(itemBatch, in: db) },
        ])
        let titles = try await database.writer.read { db in
            try String.fetchAll(db, sql: "SELECT title FROM item WHERE folderId = 'f' ORDER BY position")
        }
        #expect(titles == ["B", "A"])
        #expect(try await database.hydrate(Schema.items).values == items.values)
        items.modify("a") { $0.rank = nil; $0.title = "A2" }
        let update = items.drainBatch()
        try await database.performAtomically([{ db in try Schema.items.write(update, in: db) }])
        #expect(try await database.hydrate(Schema.items).values == items.values)
    }

    @Test("An id deleted and re-inserted before one flush is stored at the end, like in the store")
    func deleteThenReinsertMovesToEnd() async throws {
        let database = try SwiduxDatabase.inMemory(migrations: Schema.migrations)
        var todos = EntityStore<Todo>()
        for id in 0..<3 { todos[id] = Todo(id: id, title: "\(id)", done: false, tags: []) }
        let first = todos.drainBatch()
        try await database.performAtomically([{ db in try Schema.todos.write(first, in: db) }])
        todos[0] = nil
        todos[0] = Todo(id: 0, title: "back", done: false, tags: [])
        #expect(todos.ids == [1, 2, 0])
        let second = todos.drainBatch()
        try await database.performAtomically([{ db in try Schema.todos.write(second, in: db) }])
        // The change set records the move to the end as a reorder.
        #expect(second.order == [1, 2, 0])
        #expect(try await database.hydrate(Schema.todos).ids == [1, 2, 0])
    }

    @Test("A record that encodes the position column is refused with a clear error")
    func recordWithPositionProperty() async throws {
        struct Slot: Codable, Identifiable, Equatable, Sendable, FetchableRecord, PersistableRecord {
            var id: Int
            var position: Int
        }
        let migrations = SwiduxMigrations { m in
            m.register("v1") { db in
                try db.create(table: "slot") { t in
                    t.primaryKey("id", .integer)
                    t.entityPositionColumn("order")
                    t.column("position", .integer)
                }
            }
        }
        let database = try SwiduxDatabase.inMemory(migrations: migrations)
        let clashing = EntityTable(recordsOf: Slot.self)
        let error = await #expect(throws: SwiduxDatabaseError.self) {
            try await database.performAtomically([{ db in try clashing.write(WriteBatch(writes: [Slot(id: 1, position: 4)]), in: db) }])
        }
        #expect(error?.cause == .unencodable(table: "slot"))
        // Naming another position column fixes it.
        let slots = EntityTable(recordsOf: Slot.self, positionColumn: "order")
        try await database.performAtomically([{ db in
            try slots.write(WriteBatch(writes: [Slot(id: 1, position: 4), Slot(id: 2, position: 0)]), in: db)
        }])
        #expect(try await database.hydrate(slots).values == [Slot(id: 1, position: 4), Slot(id: 2, position: 0)])
    }

    @Test("A row that no longer decodes gives a typed error naming the table")
    func undecodableRow() async throws {
        let database = try SwiduxDatabase.inMemory(migrations: Schema.migrations)
        try await database.writer.write { db in
            try db.execute(sql: "INSERT INTO todo (id, position, data) VALUES (1, 0, '{\"id\": 1}')")
        }
        let error = await #expect(throws: SwiduxDatabaseError.self) { try await database.hydrate(Schema.todos) }
        #expect(error?.cause == .undecodable(table: "todo"))
        // One line naming the cause, not a dump of the decoding error's context.
        let description = error?.description ?? ""
        #expect(description.hasPrefix("SQLite database in memory: a row of table \"todo\" cannot be decoded ("), "\(description)")
        #expect(!description.contains("\n") && !description.contains("codingPath") && !description.contains("Context("), "\(description)")
    }
}
