import Foundation
import Testing
@testable import TodosApp

/// Issue 27, item 1: tagging an item that `todos rm` (another process) deleted meanwhile
/// must not block saving: the tag link is set aside, the flush succeeds (quitting the UI
/// exits 0, without "saving failed"), and later edits are saved.
extension ProcessTests { @Suite struct OrphanedTagTests {
    @MainActor
    @Test func taggingAnItemRemovedMeanwhileDoesNotBlockSaving() async throws {
        let box = try Sandbox()
        let victim = try #require(UUID(uuidString: try await box.add("victim")))
        let other = try #require(UUID(uuidString: try await box.add("other")))
        // Saves only when asked: the tag stays unsaved while the other process removes the item.
        let app = try TodoApp(database: AppDatabase.open(path: box.database, access: .existing),
                              persistenceDebounce: .seconds(3600))
        app.store.send(.tags(.add(itemID: victim, name: "urgent", tagID: UUID())))
        #expect(app.store.itemTags.count == 1)
        #expect(try await box.run("rm", victim.uuidString).status == 0)

        try await app.flush()   // threw "FOREIGN KEY constraint failed", on every later flush too
        #expect(app.hasVanished(victim) == false)
        #expect(app.store.itemTags.isEmpty)

        app.store.send(.items(.setTitle(id: other, title: "saved after")))
        try await app.flush()
        try app.database.close()
        let items = try await box.listJSON()
        #expect(items.map(\.title) == ["saved after"])
        #expect(items.first?.tags == [])
    }
} }
