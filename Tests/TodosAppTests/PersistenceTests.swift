import Foundation
import Testing
import SwiduxSQLite
@testable import TodosApp

@MainActor
@Suite struct PersistenceTests {
    func temporaryPath() -> String {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("todos-\(UUID().uuidString)")
        return directory.appendingPathComponent("nested/todos.sqlite").path
    }

    func entities(_ state: AppState) -> [String] {
        state.lists.map { "list \($0.name)" } + state.tags.map { "tag \($0.name)" }
            + state.items.map { "item \($0.title) done=\($0.isDone) list=\(state.lists[$0.listID]?.name ?? "?")" }
            + state.itemTags.map { "link \(state.items[$0.itemID]?.title ?? "?")→\(state.tags[$0.tagID]?.name ?? "?")" }
    }

    @Test func everyFeatureSurvivesARestart() async throws {
        let path = temporaryPath()
        let ids = IDSequence()
        var app: TodoApp? = try TodoApp(database: AppDatabase.open(path: path), uuid: { ids() })
        let inbox = app!.store.lists[0].id
        await app!.send(.items(.add(id: uuid(1), listID: inbox, title: "Buy milk 🥛", tags: ["shop"])))
        await app!.send(.items(.add(id: uuid(2), listID: inbox, title: "日本語", tags: ["shop", "jp"])))
        await app!.send(.items(.add(id: uuid(3), listID: inbox, title: "Third")))
        await app!.send(.lists(.add(id: uuid(4), name: "Work")))
        await app!.send(.items(.add(id: uuid(5), listID: uuid(4), title: "Plan", tags: ["jp"])))
        await app!.send(.items(.toggle(id: uuid(2))))
        await app!.send(.items(.move(id: uuid(3), offset: -2)))
        await app!.send(.items(.setTitle(id: uuid(1), title: "Buy oat milk")))
        try await app!.flush()
        let expected = entities(app!.store.state)
        try app!.database.close()
        app = nil

        let reopened = try TodoApp(database: AppDatabase.open(path: path))
        #expect(entities(reopened.store.state) == expected)
        #expect(reopened.store.items.map(\.title) == ["Third", "Buy oat milk", "日本語", "Plan"])
        #expect(try reopened.database.integrityProblems() == [])
        try reopened.database.close()
    }

    @Test func deletingAListCascadesAndUndoRestoresIt() async throws {
        let path = temporaryPath()
        let app = try TodoApp(database: AppDatabase.open(path: path))
        await app.send(.lists(.add(id: uuid(1), name: "Work")))
        await app.send(.items(.add(id: uuid(2), listID: uuid(1), title: "Plan", tags: ["q3"])))
        try await app.flush()
        await app.send(.lists(.delete(id: uuid(1))))
        try await app.flush()
        #expect(try AppDatabase.open(path: path).hydrate().items.isEmpty)
        app.perform(.undo)
        try await app.flush()
        let state = try AppDatabase.open(path: path).hydrate()
        #expect(entities(state) == entities(app.store.state))
        #expect(state.tags(of: uuid(2)).map(\.name) == ["q3"])
        #expect(try app.database.integrityProblems() == [])
    }

    @Test func aFileThatIsNotADatabaseIsLeftAlone() throws {
        let path = temporaryPath()
        try FileManager.default.createDirectory(atPath: (path as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
        let garbage = Data("this is not a database, it is a shopping list\n".utf8)
        try garbage.write(to: URL(fileURLWithPath: path))
        #expect(throws: SwiduxDatabaseError.self) { _ = try AppDatabase.open(path: path) }
        #expect(try Data(contentsOf: URL(fileURLWithPath: path)) == garbage)
    }

    @Test func databaseLocationPrecedence() {
        #expect(DatabaseLocation.resolve(option: "/a.sqlite", environment: ["TODOS_DB": "/b.sqlite"]) == "/a.sqlite")
        #expect(DatabaseLocation.resolve(option: nil, environment: ["TODOS_DB": "/b.sqlite", "XDG_DATA_HOME": "/x"]) == "/b.sqlite")
        #expect(DatabaseLocation.resolve(option: nil, environment: ["XDG_DATA_HOME": "/x", "HOME": "/h"]) == "/x/todos/todos.sqlite")
        #expect(DatabaseLocation.resolve(option: nil, environment: ["HOME": "/h"]) == "/h/.local/share/todos/todos.sqlite")
        #expect(DatabaseLocation.resolve(option: nil, environment: ["XDG_DATA_HOME": "relative", "HOME": "/h"]) == "/h/.local/share/todos/todos.sqlite")
    }
}
