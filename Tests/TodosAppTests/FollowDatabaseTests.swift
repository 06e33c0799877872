import Foundation
import Testing
@testable import TodosApp

/// Issue 13 item 5: the app follows its database; scripted commands in other processes
/// reach it, and its own unsaved edit keeps its value.
extension ProcessTests { @Suite struct FollowDatabaseTests {
    @MainActor
    func eventually(_ condition: @MainActor () -> Bool) async -> Bool {
        let deadline = Date().addingTimeInterval(10)
        while Date() < deadline {
            if condition() { return true }
            try? await Task.sleep(for: .milliseconds(5))
        }
        return condition()
    }

    @MainActor
    @Test func scriptedCommandsReachAFollowingApp() async throws {
        let box = try Sandbox()
        let first = try await box.add("first")
        // Saves only when asked: its edits stay unsaved while the other process writes.
        let app = try TodoApp(database: AppDatabase.open(path: box.database, access: .existing),
                              persistenceDebounce: .seconds(3600))
        try app.followDatabase()

        let added = try await box.add("from another process")
        let addedID = try #require(UUID(uuidString: added))
        #expect(await eventually { app.store.items[addedID]?.title == "from another process" })
        #expect(try await box.run("done", added).status == 0)
        #expect(await eventually { app.store.items[addedID]?.isDone == true })

        // An unsaved edit in the app keeps its value over another process's change.
        let firstID = try #require(UUID(uuidString: first))
        app.store.send(.items(.setTitle(id: firstID, title: "edited in the app")))
        #expect(try await box.run("done", first).status == 0)
        #expect(try await box.run("rm", added).status == 0)
        #expect(await eventually { !app.store.items.contains(addedID) })
        #expect(app.store.items[firstID]?.title == "edited in the app")
        try await app.flush()
        #expect(try await box.listJSON().first { $0.id.lowercased() == first.lowercased() }?.title == "edited in the app")
        try app.database.close()
    }
} }
