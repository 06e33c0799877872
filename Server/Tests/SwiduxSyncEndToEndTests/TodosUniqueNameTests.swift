import Foundation
import GRDB
import PostgresTestSupport
import Testing

/// Two `todos` devices that each have a list "Shopping" of their own (one made it by name, the
/// other through plain SQL, as the UI's new-list or rename does: another id) and an item in it:
/// after `todos sync` on both, each lists both items, the later list renamed "Shopping (2)"
/// and the rename listed by `todos conflicts`; nothing waits.
@Suite("todos: unique list names across devices", .serialized)
struct TodosUniqueNameTests {
    struct Item: Decodable, Equatable {
        var title: String
        var list: String
    }

    struct Listed: Decodable, Equatable {
        var table: String
        var column: String
        var kept: String
        var replaced: String
        var kind: String?
    }

    @Test("each device's item stays visible, in its own list; the later list is renamed \"Shopping (2)\" and listed")
    func sameListName() async throws {
        let fixture = try await SyncServerFixture.start(space: "todos-unique")
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let setup = TodosMergeTests.Setup(fixture: fixture, directory: directory)
        do {
            let a = setup.path("a"), b = setup.path("b")
            try await setup.run("add", "--list", "Shopping", "milk", on: a)
            // b's list "Shopping" has an id of its own (made in the UI, or renamed to it).
            try await setup.run("add", "--list", "Inbox", "first", on: b)
            let id = Data((0..<16).map { UInt8($0 + 1) })
            try setup.sql(b, "INSERT INTO todoList (id, position, name, nameKey) VALUES (?, 5, 'Shopping', 'shopping')", [id])
            try await setup.run("add", "--list", "Shopping", "eggs", on: b)
            try await setup.run("sync", on: a)
            let output = try await setup.run("sync", on: b)
            #expect(output.contains("1 conflict") && output.contains("renamed to \"Shopping (2)\""), "\(output)")
            #expect(!output.contains("waiting"), "\(output)")
            let pulled = try await setup.run("sync", on: a)
            #expect(!pulled.contains("waiting") && !pulled.contains("conflict"), "\(pulled)")
            let expected = [Item(title: "eggs", list: "Shopping (2)"), Item(title: "first", list: "Inbox"), Item(title: "milk", list: "Shopping")]
            for database in [a, b] {
                let items = try JSONDecoder().decode([Item].self, from: Data(try await setup.run("list", "--json", on: database).utf8))
                #expect(items.sorted { $0.title < $1.title } == expected, "\(database)")
                // The renamed list is found by its new name.
                let renamed = try JSONDecoder().decode([Item].self, from: Data(try await setup.run("list", "--list", "Shopping (2)", "--json", on: database).utf8))
                #expect(renamed.map(\.title) == ["eggs"])
            }
            let listed = try JSONDecoder().decode([Listed].self, from: Data(try await setup.run("conflicts", "--json", on: b).utf8))
            #expect(listed == [Listed(table: "todoList", column: "name", kept: "Shopping (2)", replaced: "Shopping", kind: "renamed")])
            let line = try await setup.run("conflicts", on: b)
            #expect(line.contains("list \"Shopping\" renamed to \"Shopping (2)\": another device made one with that name"), "\(line)")
            #expect(try JSONDecoder().decode([Listed].self, from: Data(try await setup.run("conflicts", "--json", on: a).utf8)).isEmpty)
        } catch {
            await fixture.stop()
            throw error
        }
        await fixture.stop()
    }
}
