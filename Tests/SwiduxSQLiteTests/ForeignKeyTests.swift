import Clocks
import Foundation
import GRDB
import SwiduxSQLite
import Testing

/// Policy under test: foreign keys are enforced and checked when the flush commits
/// (`PRAGMA defer_foreign_keys = ON` inside the flush transaction). Rows that reference
/// each other may be written in any order within one flush; a flush that would leave a
/// dangling reference (a folder deleted while an item still points to it) is refused
/// as a whole — nothing of it is written — and reported through the middleware, which
/// keeps the changes pending. Delete the children in the same reduce (or flush).
@MainActor
@Suite("Foreign keys between entity tables")
struct ForeignKeyTests {
    enum Registration: CaseIterable, Sendable { case parentFirst, childFirst }

    static func middleware(_ database: SwiduxDatabase, _ registration: Registration) -> PersistenceMiddleware<TestState> {
        let folders = database.stateWriter(for: \TestState.folders, table: Schema.folders)
        let items = database.stateWriter(for: \TestState.items, table: Schema.items)
        let todos = database.stateWriter(for: \TestState.todos, table: Schema.todos)
        return PersistenceMiddleware(
            writers: registration == .parentFirst ? [folders, items, todos] : [items, folders, todos],
            clock: TestClock())
    }

    @Test("Parent and child inserted in one flush, in either writer order", arguments: Registration.allCases)
    func insertParentAndChild(registration: Registration) async throws {
        let database = try SwiduxDatabase.inMemory(migrations: Schema.migrations)
        let persistence = Self.middleware(database, registration)
        var state = TestState()
        state.items["i1"] = Item(id: "i1", folderId: "f1", title: "child first", rank: 1)
        state.folders["f1"] = Folder(id: "f1", name: "Inbox")
        state.items["i2"] = Item(id: "i2", folderId: "f1", title: "child after", rank: nil)
        persistence.afterReduce(state: &state)
        try await persistence.flush()
        let (folders, items) = try await database.hydrateAll(Schema.folders, Schema.items)
        #expect(folders.values == state.folders.values)
        #expect(items.values == state.items.values)
    }

    @Test("Parent deleted with its children in one flush, in either writer order", arguments: Registration.allCases)
    func deleteParentWithChildren(registration: Registration) async throws {
        let database = try SwiduxDatabase.inMemory(migrations: Schema.migrations)
        let persistence = Self.middleware(database, registration)
        var state = TestState()
        state.folders["f1"] = Folder(id: "f1", name: "Inbox")
        state.folders["f2"] = Folder(id: "f2", name: "Later")
        state.items["i1"] = Item(id: "i1", folderId: "f1", title: "a", rank: nil)
        state.items["i2"] = Item(id: "i2", folderId: "f2", title: "b", rank: nil)
        persistence.afterReduce(state: &state)
        try await persistence.flush()

        state.folders["f1"] = nil
        state.items.removeAll { $0.folderId == "f1" }
        persistence.afterReduce(state: &state)
        try await persistence.flush()
        let (folders, items) = try await database.hydrateAll(Schema.folders, Schema.items)
        #expect(folders.ids == ["f2"])
        #expect(items.ids == ["i2"])
    }

    @Test("Deleting a parent that still has children is refused as a whole, reported, then retried", arguments: Registration.allCases)
    func danglingReferenceIsRefused(registration: Registration) async throws {
        let database = try SwiduxDatabase.inMemory(migrations: Schema.migrations)
        let persistence = Self.middleware(database, registration)
        var failures = persistence.errors.makeAsyncIterator()
        var state = TestState()
        state.folders["f1"] = Folder(id: "f1", name: "Inbox")
        state.items["i1"] = Item(id: "i1", folderId: "f1", title: "a", rank: nil)
        persistence.afterReduce(state: &state)
        try await persistence.flush()

        state.folders["f1"] = nil                                              // child i1 kept: dangling
        state.todos[1] = Todo(id: 1, title: "same flush", done: false, tags: [])  // another writer, same flush
        persistence.afterReduce(state: &state)
        let error = await #expect(throws: PersistenceWriteFailure.self) { try await persistence.flush() }
        let cause = (error?.underlying as? SwiduxDatabaseError)?.cause
        #expect(cause == .constraintViolation, "\(String(describing: error))")
        #expect(persistence.hasPendingWrites)
        let reported = await failures.next()
        #expect((reported?.underlying as? SwiduxDatabaseError)?.cause == .constraintViolation)

        // Nothing of the refused flush was written.
        let (folders, items, todos) = try await database.hydrateAll(Schema.folders, Schema.items, Schema.todos)
        #expect(folders.ids == ["f1"])
        #expect(items.ids == ["i1"])
        #expect(todos.isEmpty)

        // The app deletes the child too: the kept changes and the new one go through.
        state.items["i1"] = nil
        persistence.afterReduce(state: &state)
        try await persistence.flush()
        let (folders2, items2, todos2) = try await database.hydrateAll(Schema.folders, Schema.items, Schema.todos)
        #expect(folders2.isEmpty && items2.isEmpty)
        #expect(todos2.values == state.todos.values)
    }
}

/// The alternative an app may declare: `ON DELETE CASCADE` (the example app does). The
/// database then deletes the children itself; the state should delete them too, in the
/// same reduce, or the two diverge until the next restart.
@MainActor
@Suite("Foreign keys declared ON DELETE CASCADE")
struct CascadeForeignKeyTests {
    struct Shelf: Codable, Identifiable, Equatable, Sendable, FetchableRecord, PersistableRecord {
        var id: Int
        var label: String
    }
    struct Book: Codable, Identifiable, Equatable, Sendable, FetchableRecord, PersistableRecord {
        var id: Int
        var shelfId: Int
        var title: String
    }
    struct Library: Sendable {
        var shelves = EntityStore<Shelf>()
        var books = EntityStore<Book>()
    }
    static let shelves = EntityTable(recordsOf: Shelf.self)
    static let books = EntityTable(recordsOf: Book.self)
    static let migrations = SwiduxMigrations { m in
        m.register("v1") { db in
            try db.create(table: "shelf") { t in
                t.primaryKey("id", .integer)
                t.entityPositionColumn()
                t.column("label", .text).notNull()
            }
            try db.create(table: "book") { t in
                t.primaryKey("id", .integer)
                t.entityPositionColumn()
                t.belongsTo("shelf", onDelete: .cascade).notNull()
                t.column("title", .text).notNull()
            }
        }
    }

    @Test("Parent and children deleted in one flush, in either writer order", arguments: [false, true])
    func cascadeWithStateDeletions(childFirst: Bool) async throws {
        let database = try SwiduxDatabase.inMemory(migrations: Self.migrations)
        let shelfWriter = database.stateWriter(for: \Library.shelves, table: Self.shelves)
        let bookWriter = database.stateWriter(for: \Library.books, table: Self.books)
        let persistence = PersistenceMiddleware<Library>(
            writers: childFirst ? [bookWriter, shelfWriter] : [shelfWriter, bookWriter], clock: TestClock())
        var state = Library()
        state.books[1] = Book(id: 1, shelfId: 1, title: "A")
        state.shelves[1] = Shelf(id: 1, label: "Top")
        state.shelves[2] = Shelf(id: 2, label: "Bottom")
        state.books[2] = Book(id: 2, shelfId: 2, title: "B")
        persistence.afterReduce(state: &state)
        try await persistence.flush()

        state.shelves[1] = nil
        state.books.removeAll { $0.shelfId == 1 }
        persistence.afterReduce(state: &state)
        try await persistence.flush()
        let (shelves, books) = try await database.hydrateAll(Self.shelves, Self.books)
        #expect(shelves.values == state.shelves.values)
        #expect(books.values == state.books.values)
    }
}
