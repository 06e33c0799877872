import Clocks
import Foundation
import SwiduxTestSupport
import GRDB
import SwiduxSQLite
import Testing

/// Issue 27, items 1 and 5: a write that can never succeed — a child whose parent another
/// writer deleted — is set aside (reported, dropped from the store, its row left out)
/// instead of failing every flush; an entity the file held and that the store deleted and
/// added back within one window is written as an update, so that another writer's
/// deletion wins. The other writer is a second connection or a real second process.
@MainActor
@Suite("Writes that can never succeed are set aside")
struct OrphanedWriteTests {
    enum OtherWriter: CaseIterable, Sendable { case connection, process }

    final class Reports {
        var vanished: [VanishedEntities] = []
        var errors: [PersistenceWriteFailure] = []
        var orphaned: [String] { vanished.first { $0.reason == .orphaned }?.ids.compactMap { $0 as? String } ?? [] }
    }

    /// A database file in a temporary directory, a persistence middleware writing items,
    /// folders and todos to it, and what the middleware reported.
    @MainActor
    final class Fixture {
        let directory: TemporaryDirectory
        let path: String
        let database: SwiduxDatabase
        let reports = Reports()
        let persistence: PersistenceMiddleware<TestState>

        init() throws {
            directory = try TemporaryDirectory()
            path = directory.path("app.sqlite")
            database = try SwiduxDatabase(path: path, migrations: Schema.migrations)
            persistence = PersistenceMiddleware<TestState>(writers: [
                database.stateWriter(for: \TestState.items, table: Schema.items),
                database.stateWriter(for: \TestState.folders, table: Schema.folders),
                database.stateWriter(for: \TestState.todos, table: Schema.todos),
            ], clock: TestClock())
            persistence.onVanished = { [reports] in reports.vanished.append($0) }
            persistence.onError = { [reports] in reports.errors.append($0) }
        }

        /// Records the changes of `state` (as a store does after a reduce).
        func record(_ state: inout TestState) { persistence.afterReduce(state: &state) }

        /// Records the changes of `state` and flushes them.
        func save(_ state: inout TestState) async throws {
            persistence.afterReduce(state: &state)
            try await persistence.flush()
        }

        /// Runs `sql` on the file as another writer: a second connection, or a real process.
        func otherWriter(_ kind: OtherWriter, sql: String) async throws {
            switch kind {
            case .connection:
                let other = try DatabaseQueue(path: path)
                try await other.write { db in try db.execute(sql: sql) }
                try other.close()
            case .process:
                let writer = try CrashAtomicityTests.crashWriterPath()
                #expect(try await ChildProcess.run([writer, "raw-sql", path, sql], output: directory.path("child.log")) == 0)
            }
        }
    }

    @Test("A child whose parent another writer deleted is set aside; the rest of the flush and every later one is saved",
          arguments: OtherWriter.allCases)
    func orphanedInsertionIsSetAside(other: OtherWriter) async throws {
        let fixture = try Fixture()
        let (database, reports, persistence) = (fixture.database, fixture.reports, fixture.persistence)
        var state = TestState()
        state.folders["f1"] = Folder(id: "f1", name: "Inbox")
        state.folders["f2"] = Folder(id: "f2", name: "Later")
        try await fixture.save(&state)

        // A child insertion is pending while another writer deletes its parent.
        state.items["i1"] = Item(id: "i1", folderId: "f1", title: "orphan", rank: nil)
        state.items["i2"] = Item(id: "i2", folderId: "f2", title: "kept", rank: 1)
        state.todos[1] = Todo(id: 1, title: "same flush", done: false, tags: [])
        fixture.record(&state)
        try await fixture.otherWriter(other, sql: "DELETE FROM folder WHERE id = 'f1'")

        try await persistence.flush()   // does not throw
        #expect(reports.errors.isEmpty)
        #expect(!persistence.hasPendingWrites)
        let orphans = reports.vanished.filter { $0.reason == .orphaned }
        #expect(orphans.count == 1)
        #expect(orphans.first?.ids.compactMap { $0 as? String } == ["i1"])
        #expect(orphans.first?.writer.contains("items") == true)

        // The store learns its orphan is gone, unrecorded (a hand-written store: at the next afterReduce).
        state.folders["f1"] = nil   // as following the database would
        fixture.record(&state)
        #expect(state.items.ids == ["i2"])
        // Nothing of it is written back: the store deleting f1 finds no row, i1 never existed.
        try await persistence.flush()
        var (folders, items, todos) = try await database.hydrateAll(Schema.folders, Schema.items, Schema.todos)
        #expect(folders.ids == ["f2"])
        #expect(items.values == state.items.values)
        #expect(todos.values == state.todos.values)

        // Later changes are saved.
        state.items["i3"] = Item(id: "i3", folderId: "f2", title: "later", rank: nil)
        state.todos[2] = Todo(id: 2, title: "later", done: true, tags: [])
        try await fixture.save(&state)
        (folders, items, todos) = try await database.hydrateAll(Schema.folders, Schema.items, Schema.todos)
        #expect(items.values == state.items.values)
        #expect(todos.values == state.todos.values)
        #expect(reports.errors.isEmpty)
        let check = try database.writer.read { db in try Row.fetchAll(db, sql: "PRAGMA foreign_key_check") }
        #expect(check.isEmpty)
    }

    @Test("An update moving a child under a parent another writer deleted is set aside, and its row removed, as a cascade would",
          arguments: OtherWriter.allCases)
    func orphanedUpdateIsSetAside(other: OtherWriter) async throws {
        let fixture = try Fixture()
        let (database, reports, persistence) = (fixture.database, fixture.reports, fixture.persistence)
        var state = TestState()
        state.folders["f1"] = Folder(id: "f1", name: "Inbox")
        state.folders["f2"] = Folder(id: "f2", name: "Later")
        state.items["i1"] = Item(id: "i1", folderId: "f2", title: "moved", rank: nil)
        state.items["i2"] = Item(id: "i2", folderId: "f2", title: "edited", rank: nil)
        try await fixture.save(&state)

        state.items.modify("i1") { $0.folderId = "f1" }
        state.items.modify("i2") { $0.title = "edited again" }
        fixture.record(&state)
        try await fixture.otherWriter(other, sql: "DELETE FROM folder WHERE id = 'f1'")
        try await persistence.flush()
        #expect(reports.errors.isEmpty)
        #expect(reports.orphaned == ["i1"])
        state.folders["f1"] = nil
        try await fixture.save(&state)
        let (folders, items) = try await database.hydrateAll(Schema.folders, Schema.items)
        #expect(folders.values == state.folders.values)
        #expect(items.values == state.items.values)
        #expect(items.ids == ["i2"])
        #expect(items["i2"]?.title == "edited again")
    }

    @Test("A child re-inserted (as undo does) under a parent another writer deleted is set aside", arguments: OtherWriter.allCases)
    func reinsertedChildIsSetAside(other: OtherWriter) async throws {
        let fixture = try Fixture()
        let (database, reports) = (fixture.database, fixture.reports)
        var state = TestState()
        state.folders["f1"] = Folder(id: "f1", name: "Inbox")
        let child = Item(id: "i1", folderId: "f1", title: "deleted, then undone", rank: nil)
        state.items["i1"] = child
        try await fixture.save(&state)
        state.items["i1"] = nil
        try await fixture.save(&state)

        try await fixture.otherWriter(other, sql: "DELETE FROM folder WHERE id = 'f1'")
        state.items["i1"] = child                   // undo of the deletion
        state.todos[1] = Todo(id: 1, title: "saved", done: false, tags: [])
        try await fixture.save(&state)
        #expect(reports.errors.isEmpty)
        #expect(reports.orphaned == ["i1"])
        fixture.record(&state)
        #expect(state.items.isEmpty)
        let (items, todos) = try await database.hydrateAll(Schema.items, Schema.todos)
        #expect(items.isEmpty)
        #expect(todos.values == state.todos.values)
    }

    @Test("Delete, then add back within the window, does not re-create a row another writer deleted meanwhile",
          arguments: OtherWriter.allCases)
    func deleteThenUndoIsAnUpdate(other: OtherWriter) async throws {
        let fixture = try Fixture()
        let (database, reports, persistence) = (fixture.database, fixture.reports, fixture.persistence)
        var state = TestState()
        state.todos[1] = Todo(id: 1, title: "held by the file", done: false, tags: [])
        state.todos[2] = Todo(id: 2, title: "other", done: false, tags: [])
        try await fixture.save(&state)

        let held = state.todos[1]!
        state.todos[1] = nil               // delete …
        fixture.record(&state)
        state.todos[1] = held              // … and undo, before the window closes
        fixture.record(&state)
        try await fixture.otherWriter(other, sql: "DELETE FROM todo WHERE id = 1")
        try await persistence.flush()

        #expect(reports.errors.isEmpty)
        #expect(reports.vanished.first?.reason == .deletedElsewhere)
        #expect(reports.vanished.first?.ids.compactMap { $0 as? Int } == [1])
        fixture.record(&state)
        #expect(state.todos.ids == [2])
        let todos = try await database.hydrate(Schema.todos)
        #expect(todos.ids == [2])
    }

    @Test("An entity the file never held, added, deleted and added back within the window, is inserted")
    func neverHeldIsInserted() async throws {
        let fixture = try Fixture()
        let (database, reports) = (fixture.database, fixture.reports)
        var state = TestState()
        let new = Todo(id: 7, title: "new", done: false, tags: [])
        state.todos[7] = new
        fixture.record(&state)
        state.todos[7] = nil
        fixture.record(&state)
        state.todos[7] = new
        try await fixture.save(&state)
        #expect(reports.vanished.isEmpty)
        #expect(try await database.hydrate(Schema.todos).values == [new])
    }
}
