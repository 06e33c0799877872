import Foundation
import Testing
@testable import TodosApp

/// Issue 18 item 2: a terminal UI that is open while `todos` commands change the same
/// file. The UI is a `TodoApp` driven as the terminal UI drives it (``TodoApp/performOnLatest(_:)``);
/// the commands are real `todos` processes. Both orders.
extension ProcessTests { @Suite struct OpenUIWithCLITests {
    /// A file with A and B (B tagged #keep) and C, and a UI opened on it.
    @MainActor
    func setUp() async throws -> (box: Sandbox, ui: TodoApp, a: UUID, b: UUID, c: UUID) {
        let box = try Sandbox()
        let a = try #require(UUID(uuidString: try await box.add("A")))
        let b = try #require(UUID(uuidString: try await box.add("B", "--tag", "keep")))
        let c = try #require(UUID(uuidString: try await box.add("C", "--tag", "keep")))
        let ui = try TodoApp(database: AppDatabase.open(path: box.database), persistenceDebounce: .seconds(60))
        #expect(ui.store.items.count == 3)
        return (box, ui, a, b, c)
    }

    func entry(_ items: [ItemRecord], _ id: UUID) -> ItemRecord? {
        items.first { $0.id == id.uuidString.lowercased() }
    }

    /// The command line changes first; the UI, still showing the old values, edits after.
    @MainActor
    @Test func uiEditsAfterTheCommandLineChangedTheItems() async throws {
        let (box, ui, a, b, c) = try await setUp()
        #expect(try await box.run("rm", b.uuidString).status == 0)
        #expect(try await box.run("done", a.uuidString).status == 0)

        // Toggling B, which the command line removed: B is not re-inserted, the UI drops it.
        await ui.performOnLatest(.send(.items(.toggle(id: b))))
        try await ui.flush()
        var items = try await box.listJSON()
        #expect(entry(items, b) == nil, "B was re-inserted")
        #expect(ui.store.items[b] == nil, "the UI still shows B")
        #expect(entry(items, c)?.tags == ["keep"], "C lost its tag")

        // Renaming A, which the command line marked done: A stays done.
        await ui.performOnLatest(.send(.items(.setTitle(id: a, title: "A renamed"))))
        try await ui.flush()
        items = try await box.listJSON()
        #expect(entry(items, a)?.title == "A renamed")
        #expect(entry(items, a)?.done == true, "the UI's stale copy overwrote done")
        try ui.database.close()
    }

    /// The UI edits first (flushed); then the command line changes the same items; the UI
    /// keeps running and quits: it writes nothing over them.
    @MainActor
    @Test func commandLineChangesAfterTheUIEdited() async throws {
        let (box, ui, a, b, c) = try await setUp()
        await ui.performOnLatest(.send(.items(.setTitle(id: a, title: "A renamed"))))
        await ui.performOnLatest(.send(.items(.toggle(id: b))))
        try await ui.flush()
        #expect(try await box.run("rm", b.uuidString).status == 0)
        #expect(try await box.run("done", a.uuidString).status == 0)
        // More work in the UI on another item, then quitting (a final flush).
        await ui.performOnLatest(.send(.items(.toggle(id: c))))
        try await ui.flush()
        try ui.database.close()
        let items = try await box.listJSON()
        #expect(entry(items, b) == nil, "B came back")
        #expect(entry(items, a)?.title == "A renamed" && entry(items, a)?.done == true)
        #expect(entry(items, c)?.done == true && entry(items, c)?.tags == ["keep"])
    }
}
}
