import Foundation
import GRDB
import PostgresTestSupport
import Testing

/// Issue 29 items 1, 2, 4, 5, 6 with real `todos` processes and a real server: copied and
/// restored files, another space's token, a corrupted cursor, a replaced server database,
/// an oversized item. (Build `todos` first: see ``TodosSyncTests``.)
@Suite("todos under hostile use", .serialized)
struct TodosHostileTests {
    /// Runs `todos` on files of one directory against a server and token.
    struct Runner {
        let directory: URL
        var server: URL
        var token: String

        func path(_ name: String) -> String { directory.appendingPathComponent("\(name).sqlite").path }

        func run(_ arguments: String..., on name: String, token: String? = nil) async throws -> (status: Int32, stdout: String, stderr: String) {
            try await TodosSyncTests.todos(arguments, database: path(name), server: server, token: token ?? self.token)
        }

        /// Runs and expects exit 0; the output.
        @discardableResult
        func ok(_ arguments: String..., on name: String, token: String? = nil) async throws -> String {
            let result = try await TodosSyncTests.todos(arguments, database: path(name), server: server, token: token ?? self.token)
            #expect(result.status == 0, "todos \(arguments) on \(name) failed: \(result.stderr)")
            return result.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        }

        func items(_ name: String) async throws -> [TodosSyncTests.Item] {
            try JSONDecoder().decode([TodosSyncTests.Item].self, from: Data(try await ok("list", "--json", on: name).utf8))
        }

        func titles(_ name: String) async throws -> Set<String> { Set(try await items(name).map(\.title)) }

        /// A new file synced once from scratch: what the server holds.
        func serverTitles(token: String? = nil) async throws -> Set<String> {
            let name = "fresh-\(UUID().uuidString)"
            try await ok("sync", on: name, token: token)
            return try await titles(name)
        }

        func copy(_ source: String, to target: String) throws {
            try? FileManager.default.removeItem(atPath: path(target))
            for suffix in ["-wal", "-shm"] { try? FileManager.default.removeItem(atPath: path(target) + suffix) }
            try FileManager.default.copyItem(atPath: path(source), toPath: path(target))
        }
    }

    static func runner(_ fixture: SyncServerFixture) throws -> Runner {
        Runner(directory: try temporaryDirectory(), server: fixture.server.url, token: fixture.token)
    }

    @Test("a copied file's new changes reach the server and the other copy (item 1)")
    func copiedFileLosesNothing() async throws {
        let fixture = try await SyncServerFixture.start(space: "copy")
        let todos = try Self.runner(fixture)
        defer { try? FileManager.default.removeItem(at: todos.directory) }
        try await todos.ok("add", "first", on: "a")
        // Its own rows coming back are not counted as pulled (item 19).
        let firstSync = try await todos.ok("sync", on: "a")
        #expect(firstSync.contains("pulled 0"), "\(firstSync)")
        try todos.copy("a", to: "b")
        try await todos.ok("add", "on a", on: "a")
        try await todos.ok("add", "on b", on: "b")
        try await todos.ok("sync", on: "a")
        let b = try await todos.ok("sync", on: "b")
        #expect(b.contains("new client id"), "\(b)")
        try await todos.ok("sync", on: "a")
        let all: Set = ["first", "on a", "on b"]
        #expect(try await todos.titles("a") == all)
        #expect(try await todos.titles("b") == all)
        #expect(try await todos.serverTitles() == all)
        await fixture.stop()
    }

    @Test("a restored backup keeps its new changes and its local edits; the changes made after the backup come back (item 2)")
    func restoredBackupLosesNothing() async throws {
        let fixture = try await SyncServerFixture.start(space: "restore")
        let todos = try Self.runner(fixture)
        defer { try? FileManager.default.removeItem(at: todos.directory) }
        let x = try await todos.ok("add", "x", on: "a")
        try await todos.ok("sync", on: "a")
        try todos.copy("a", to: "backup")
        try await todos.ok("add", "y", on: "a")
        try await todos.ok("sync", on: "a")
        try todos.copy("backup", to: "a")
        try await todos.ok("done", x, on: "a")
        try await todos.ok("add", "z", on: "a")
        let output = try await todos.ok("sync", on: "a")
        #expect(output.contains("new client id"), "\(output)")
        try await todos.ok("sync", on: "fresh")
        for items in [try await todos.items("a"), try await todos.items("fresh")] {
            #expect(Set(items.map(\.title)) == ["x", "y", "z"])
            #expect(items.first { $0.title == "x" }?.done == true, "the restored file's done was reverted: \(items)")
        }
        await fixture.stop()
    }

    @Test("a file given another space's token pushes everything there and pulls everything from it (item 4)")
    func anotherSpaceIsAFirstSync() async throws {
        let fixture = try await SyncServerFixture.start(space: "one")
        let other = try await ServerProcess.createToken(postgres: fixture.postgres, space: "two")
        let todos = try Self.runner(fixture)
        defer { try? FileManager.default.removeItem(at: todos.directory) }
        // Space two's rows are older than space one's (one version sequence for all spaces).
        try await todos.ok("add", "theirs", on: "b", token: other)
        try await todos.ok("sync", on: "b", token: other)
        try await todos.ok("add", "mine", on: "a")
        try await todos.ok("sync", on: "a")
        let moved = try await todos.ok("sync", on: "a", token: other)
        #expect(moved.contains("first time"), "\(moved)")
        try await todos.ok("sync", on: "b", token: other)
        #expect(try await todos.titles("a") == ["mine", "theirs"])
        #expect(try await todos.titles("b") == ["mine", "theirs"])
        #expect(try await todos.serverTitles(token: other) == ["mine", "theirs"])
        #expect(try await todos.serverTitles() == ["mine"])
        await fixture.stop()
    }

    @Test("a cursor past the server's end pulls again; a replaced server database gets everything again (item 5)")
    func cursorPastTheEndAndReplacedDatabase() async throws {
        let fixture = try await SyncServerFixture.start(space: "end")
        var todos = try Self.runner(fixture)
        defer { try? FileManager.default.removeItem(at: todos.directory) }
        try await todos.ok("add", "one", on: "a")
        try await todos.ok("sync", on: "a")
        try await todos.ok("sync", on: "b")
        // A corrupted cursor, far past the server's end.
        let queue = try DatabaseQueue(path: todos.path("b"))
        try await queue.write { db in try db.execute(sql: "UPDATE swidux_sync_state SET value = 1000000000 WHERE key = 'cursor'") }
        try queue.close()
        try await todos.ok("add", "two", on: "a")
        try await todos.ok("sync", on: "a")
        try await todos.ok("sync", on: "b")
        #expect(try await todos.titles("b") == ["one", "two"])

        // The server's database replaced by an empty one: the files push everything again.
        await fixture.stop()
        let replaced = try await SyncServerFixture.start(space: "end")
        todos.server = replaced.server.url
        todos.token = replaced.token
        let output = try await todos.ok("sync", on: "a")
        #expect(output.contains("first time"), "\(output)")
        try await todos.ok("add", "three", on: "b")
        try await todos.ok("sync", on: "b")
        try await todos.ok("sync", on: "a")
        #expect(try await todos.titles("a") == ["one", "two", "three"])
        #expect(try await todos.serverTitles() == ["one", "two", "three"])
        await replaced.stop()
    }

    @Test("an item too large for the server is set aside and named; every other change keeps syncing (item 6)")
    func oversizedItemIsSetAside() async throws {
        let fixture = try await SyncServerFixture.start(space: "large")
        let todos = try Self.runner(fixture)
        defer { try? FileManager.default.removeItem(at: todos.directory) }
        let big = try await todos.ok("add", "big", on: "a")
        try await todos.ok("sync", on: "a")
        // A 17 MiB title (too long for a command-line argument: written with SQL, like any writer).
        let queue = try DatabaseQueue(path: todos.path("a"))
        try await queue.write { db in
            let table = try String.fetchOne(db, sql: "SELECT name FROM sqlite_master WHERE type = 'table' AND sql LIKE '%title%' AND name NOT LIKE 'swidux%'")!
            try db.execute(sql: "UPDATE \(table) SET title = ?", arguments: [String(repeating: "x", count: 17 << 20)])
        }
        try queue.close()
        try await todos.ok("add", "after", on: "a")
        let first = try await todos.run("sync", on: "a")
        #expect(first.status != 0)
        #expect(first.stderr.contains(big) && first.stderr.contains("too large"), "\(first.stderr)")
        #expect(try await todos.serverTitles() == ["big", "after"])
        try await todos.ok("add", "later", on: "a")
        let second = try await todos.run("sync", on: "a")
        #expect(second.status != 0 && second.stderr.contains(big))
        #expect(try await todos.serverTitles() == ["big", "after", "later"])
        await fixture.stop()
    }
}
