import Foundation
import GRDB
import SwiduxSQLite
import Testing

/// Issue 27 items 2 and 3: what the database changes as a consequence of a store's own
/// flush (cascades, `SET NULL`, triggers) reaches that store; two stores on one
/// `SwiduxDatabase` are two writers.
@MainActor
@Suite("Many writers: flush consequences and two stores on one database", .timeLimit(.minutes(3)))
struct FlushConsequencesTests {
    @Test("A cascade and a SET NULL caused by the store's own flush reach it: a child another process added is gone, a note loses its list")
    func cascadeOfOwnFlushReachesTheStore() async throws {
        let directory = try TemporaryDirectory()
        let path = directory.path("app.sqlite")
        let log = directory.path("child.log")
        let window = try CWindow(path: path)
        window.send { $0.lists["L"] = CList(id: "L", name: "groceries") }
        try await window.store.flush()

        // Another process adds a child and a note under the list; the store shows them.
        #expect(try await runRawSQL("""
            INSERT INTO citem (id, position, clistId, title) VALUES ('c1', 0, 'L', 'milk');
            INSERT INTO cnote (id, position, clistId, text) VALUES ('n1', 0, 'L', 'by the door');
            """, on: path, log: log) == 0)
        #expect(await eventually { window.store.state.items["c1"] != nil && window.store.state.notes["n1"] != nil })
        #expect(window.store.state.lists["L"]?.itemCount == 1)   // the app trigger, run by the other process

        // The store deletes the list (only the list: the database does the rest).
        window.send { $0.lists["L"] = nil }
        try await window.store.flush()
        #expect(try window.file().items.isEmpty)
        #expect(try window.file().notes["n1"]?.clistId == nil)
        #expect(try await window.waitUntilEqualToFile())
        #expect(window.store.state.items["c1"] == nil)
        #expect(window.store.state.notes["n1"] == CNote(id: "n1", clistId: nil, text: "by the door"))
        #expect(!window.persistence.hasPendingWrites)
    }

    @Test("A row an app trigger changes during the store's own flush reaches it")
    func triggerOfOwnFlushReachesTheStore() async throws {
        let directory = try TemporaryDirectory()
        let path = directory.path("app.sqlite")
        let window = try CWindow(path: path)
        window.send { $0.lists["L"] = CList(id: "L", name: "groceries") }
        try await window.store.flush()
        // The flush inserts an item; the trigger changes the list row, which it did not write.
        window.send { $0.items["i1"] = CItem(id: "i1", clistId: "L", title: "bread") }
        try await window.store.flush()
        #expect(try window.file().lists["L"]?.itemCount == 1)
        #expect(await eventually { window.store.state.lists["L"]?.itemCount == 1 })
        // Again, on top of the value the store learned.
        window.send { $0.items["i2"] = CItem(id: "i2", clistId: "L", title: "butter") }
        try await window.store.flush()
        #expect(await eventually { window.store.state.lists["L"]?.itemCount == 2 })
        #expect(try await window.waitUntilEqualToFile())
        #expect(!window.persistence.hasPendingWrites)
    }

    @Test("Two stores on one SwiduxDatabase see each other's updates and deletions, and never write back a stale value")
    func twoStoresOnOneDatabaseAreTwoWriters() async throws {
        let directory = try TemporaryDirectory()
        let database = try SwiduxDatabase(path: directory.path("app.sqlite"), migrations: CSchema.migrations)
        let one = try CWindow(database: database)
        let two = try CWindow(database: database)

        one.send { $0.lists["L"] = CList(id: "L", name: "v1") }
        try await one.store.flush()
        #expect(await eventually { two.store.state.lists["L"]?.name == "v1" })

        // An update by window 1 reaches window 2.
        one.send { $0.lists["L"]?.name = "v2" }
        try await one.store.flush()
        #expect(await eventually { two.store.state.lists["L"]?.name == "v2" })

        // Window 2 edits another row and flushes: window 1's edit stays in the file.
        two.send { $0.notes["n"] = CNote(id: "n", clistId: "L", text: "note") }
        try await two.store.flush()
        #expect(try one.file().lists["L"]?.name == "v2")
        #expect(await eventually { one.store.state.notes["n"] != nil })

        // And window 2's update of the row reaches window 1.
        two.send { $0.lists["L"]?.name = "v3" }
        try await two.store.flush()
        #expect(await eventually { one.store.state.lists["L"]?.name == "v3" })

        // A deletion by window 1 reaches window 2 (with the note's SET NULL).
        one.send { $0.lists["L"] = nil }
        try await one.store.flush()
        #expect(await eventually { two.store.state.lists.isEmpty && two.store.state.notes["n"]?.clistId == nil })
        #expect(try await one.waitUntilEqualToFile())
        #expect(try await two.waitUntilEqualToFile())
        #expect(!one.persistence.hasPendingWrites && !two.persistence.hasPendingWrites)
    }
}
