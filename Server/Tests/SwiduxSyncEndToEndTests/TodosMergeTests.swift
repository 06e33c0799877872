import Foundation
import GRDB
import PostgresTestSupport
import Testing

/// Issue 43, the four cases, through real `todos` processes and the real server; a plain
/// SQL connection stands in for an app's own edit (a rename, another app version's column).
@Suite("todos: merge by column", .serialized)
struct TodosMergeTests {
    struct Item: Decodable, Equatable {
        var id: String
        var title: String
        var done: Bool
    }

    struct Listed: Decodable, Equatable {
        var table: String
        var id: String
        var column: String
        var kept: String
        var replaced: String
        var at: String
    }

    /// A fixture and two or three `todos` files.
    struct Setup {
        let fixture: SyncServerFixture
        let directory: URL

        func path(_ name: String) -> String { directory.appendingPathComponent(name + ".sqlite").path }

        @discardableResult
        func run(_ arguments: String..., on database: String, expect status: Int32 = 0) async throws -> String {
            let result = try await TodosSyncTests.todos(arguments, database: database, server: fixture.server.url, token: fixture.token)
            #expect(result.status == status, "todos \(arguments) exited \(result.status): \(result.stderr)")
            return result.stdout
        }

        func items(_ database: String) async throws -> [Item] {
            try JSONDecoder().decode([Item].self, from: Data(try await run("list", "--json", on: database).utf8))
        }

        /// Plain SQL on a `todos` file (its triggers record the change like any other).
        func sql(_ database: String, _ statements: String, _ arguments: StatementArguments = []) throws {
            let queue = try DatabaseQueue(path: database)
            try queue.write { db in try db.execute(sql: statements, arguments: arguments) }
        }

        func value(_ database: String, _ sql: String, _ arguments: StatementArguments = []) throws -> DatabaseValue {
            let queue = try DatabaseQueue(path: database)
            return try queue.read { db in try DatabaseValue.fetchOne(db, sql: sql, arguments: arguments) ?? .null }
        }
    }

    private func withSetup(_ space: String, _ body: (Setup) async throws -> Void) async throws {
        let fixture = try await SyncServerFixture.start(space: space)
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        do {
            try await body(Setup(fixture: fixture, directory: directory))
        } catch {
            await fixture.stop()
            throw error
        }
        await fixture.stop()
    }

    /// The item's id as stored (a UUID's 16 bytes).
    private func blob(_ id: String) -> Data {
        let uuid = UUID(uuidString: id)!.uuid
        return withUnsafeBytes(of: uuid) { Data($0) }
    }

    @Test("1. A renames, B (offline) checks off: after sync A, B, A both show [x] with the new title")
    func differentFields() async throws {
        try await withSetup("merge-1") { setup in
            let a = setup.path("a"), b = setup.path("b")
            let id = try await setup.run("add", "buy milk", on: a).trimmingCharacters(in: .whitespacesAndNewlines)
            try await setup.run("sync", on: a)
            try await setup.run("sync", on: b)
            try setup.sql(a, "UPDATE todoItem SET title = 'buy oat milk' WHERE id = ?", [blob(id)])
            try await setup.run("done", id, on: b)
            try await setup.run("sync", on: a)
            let output = try await setup.run("sync", on: b)
            try await setup.run("sync", on: a)
            for database in [a, b] {
                #expect(try await setup.items(database) == [Item(id: id, title: "buy oat milk", done: true)])
                #expect(try await setup.run("conflicts", "--json", on: database).contains("[") )
                #expect(try JSONDecoder().decode([Listed].self, from: Data(try await setup.run("conflicts", "--json", on: database).utf8)).isEmpty)
            }
            #expect(!output.contains("conflict"), "\(output)")
        }
    }

    @Test("2. The same field on two devices: the later push wins, the replaced value is listed on the device that wrote it")
    func sameField() async throws {
        try await withSetup("merge-2") { setup in
            let a = setup.path("a"), b = setup.path("b")
            let id = try await setup.run("add", "call mum", on: a).trimmingCharacters(in: .whitespacesAndNewlines)
            try await setup.run("sync", on: a)
            try await setup.run("sync", on: b)
            try setup.sql(a, "UPDATE todoItem SET title = 'call mum at 6' WHERE id = ?", [blob(id)])
            try setup.sql(b, "UPDATE todoItem SET title = 'call mum on Sunday' WHERE id = ?", [blob(id)])
            try await setup.run("sync", on: a)
            try await setup.run("sync", on: b)
            let output = try await setup.run("sync", on: a)
            #expect(output.contains("1 conflict: "), "\(output)")
            #expect(output.contains("call mum at 6") && output.contains("call mum on Sunday"), "\(output)")
            for database in [a, b] {
                #expect(try await setup.items(database).map(\.title) == ["call mum on Sunday"])
            }
            let listed = try JSONDecoder().decode([Listed].self, from: Data(try await setup.run("conflicts", "--json", on: a).utf8))
            #expect(listed.count == 1)
            #expect(listed.first.map { [$0.table, $0.id, $0.column, $0.kept, $0.replaced] }
                    == ["todoItem", id, "title", "call mum on Sunday", "call mum at 6"])
            #expect(listed.first.map { ISO8601DateFormatter().date(from: $0.at) != nil } == true)
            #expect(try JSONDecoder().decode([Listed].self, from: Data(try await setup.run("conflicts", "--json", on: b).utf8)).isEmpty)
            // Listed until dismissed; a later sync does not list it again.
            #expect(try await !setup.run("sync", on: a).contains("conflict"))
            #expect(try await setup.run("conflicts", on: a).contains("call mum at 6"))
            try await setup.run("conflicts", "--dismiss", on: a)
            #expect(try await setup.run("conflicts", on: a).isEmpty)
        }
    }

    @Test("3. An older app version (no priority column) checks an item off: the priority stays on the server and reaches a new device")
    func olderVersionErasesNothing() async throws {
        try await withSetup("merge-3") { setup in
            let a = setup.path("a"), b = setup.path("b"), c = setup.path("c")
            let id = try await setup.run("add", "pay rent", on: a).trimmingCharacters(in: .whitespacesAndNewlines)
            try await setup.run("sync", on: a)
            try await setup.run("sync", on: b)
            // App v2 on A: a migration adds `priority`; A sets it. B stays on v1.
            try setup.sql(a, "ALTER TABLE todoItem ADD COLUMN priority INTEGER NOT NULL DEFAULT 0")
            try await setup.run("sync", on: a)
            try setup.sql(a, "UPDATE todoItem SET priority = 3 WHERE id = ?", [blob(id)])
            try await setup.run("done", id, on: b)
            try await setup.run("sync", on: a)
            try await setup.run("sync", on: b)
            try await setup.run("sync", on: a)
            // The server kept it.
            let server = try await serverSnapshot(server: setup.fixture.server.url, token: setup.fixture.token)
            #expect(server["todoItem"]?.values.map { $0["priority"] } == [.integer(3)])
            // C: a new device, which joins and then gets v2.
            try await setup.run("sync", on: c)
            try setup.sql(c, "ALTER TABLE todoItem ADD COLUMN priority INTEGER NOT NULL DEFAULT 0")
            try await setup.run("sync", on: c)
            for database in [a, c] {
                #expect(try setup.value(database, "SELECT priority FROM todoItem WHERE id = ?", [blob(id)]) == 3.databaseValue)
                #expect(try await setup.items(database).map(\.done) == [true])
            }
            #expect(try await setup.items(b).map(\.done) == [true])
        }
    }

    @Test("4. A device that pulled under v1 migrates to v2: its next sync fills the new column")
    func addedColumnFills() async throws {
        try await withSetup("merge-4") { setup in
            let a = setup.path("a"), b = setup.path("b")
            let first = try await setup.run("add", "one", on: a).trimmingCharacters(in: .whitespacesAndNewlines)
            let second = try await setup.run("add", "two", on: a).trimmingCharacters(in: .whitespacesAndNewlines)
            try setup.sql(a, "ALTER TABLE todoItem ADD COLUMN priority INTEGER NOT NULL DEFAULT 0")
            try setup.sql(a, "UPDATE todoItem SET priority = 2 WHERE id = ?", [blob(first)])
            try setup.sql(a, "UPDATE todoItem SET priority = 5 WHERE id = ?", [blob(second)])
            try await setup.run("sync", on: a)
            try await setup.run("sync", on: b)
            // B's app migrates to v2.
            try setup.sql(b, "ALTER TABLE todoItem ADD COLUMN priority INTEGER NOT NULL DEFAULT 0")
            try await setup.run("sync", on: b)
            #expect(try setup.value(b, "SELECT priority FROM todoItem WHERE id = ?", [blob(first)]) == 2.databaseValue)
            #expect(try setup.value(b, "SELECT priority FROM todoItem WHERE id = ?", [blob(second)]) == 5.databaseValue)
            // Nothing was pushed back by the fill; B's own change of another column keeps A's priority.
            try await setup.run("done", second, on: b)
            try await setup.run("sync", on: b)
            try await setup.run("sync", on: a)
            #expect(try setup.value(a, "SELECT priority FROM todoItem WHERE id = ?", [blob(second)]) == 5.databaseValue)
            #expect(try await setup.items(a).map(\.done) == [false, true])
        }
    }
}
