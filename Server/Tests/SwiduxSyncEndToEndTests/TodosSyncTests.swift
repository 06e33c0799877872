import Foundation
import PostgresTestSupport
import SwiduxTestSupport
import Testing

/// Two `todos` processes on different files sync through the server and see each other's
/// `add`, `done` and `rm`.
///
/// The `todos` executable is the main package's: build it first (`swift build --product todos`
/// at the repository root; `.ci/run` does) or set `SWIDUX_TODOS` to its path. It is looked up
/// in the main package's `.build/debug` and `.build/release`.
@Suite("todos through the server", .serialized)
struct TodosSyncTests {
    static func todosExecutable() throws -> String {
        if let path = ProcessInfo.processInfo.environment["SWIDUX_TODOS"], !path.isEmpty { return path }
        // …/Server/Tests/SwiduxSyncEndToEndTests/TodosSyncTests.swift → the repository root.
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().deletingLastPathComponent()
        let candidates = ["debug", "release"].map { root.appendingPathComponent(".build/\($0)/todos").path }
        guard let found = candidates.first(where: { FileManager.default.isExecutableFile(atPath: $0) }) else {
            throw ProcessFailure("the todos executable was not found at \(candidates); run `swift build --product todos` at the repository root, or set SWIDUX_TODOS")
        }
        return found
    }

    struct Item: Decodable, Equatable {
        var id: String
        var title: String
        var done: Bool
    }

    /// `todos <arguments> --db <database>` with the sync settings in the environment.
    static func todos(_ arguments: [String], database: String, server: URL, token: String) async throws -> (status: Int32, stdout: String, stderr: String) {
        var environment = ProcessInfo.processInfo.environment
        environment["TODOS_SYNC_URL"] = server.absoluteString
        environment["TODOS_SYNC_TOKEN"] = token
        environment["TODOS_DB"] = database
        let result = try await ChildProcess.capture([try todosExecutable()] + arguments, environment: environment)
        return (result.status, result.stdout, result.stderr)
    }

    @Test("add / done / rm on one file reach the other through todos sync")
    func twoTodosSeeEachOther() async throws {
        let fixture = try await SyncServerFixture.start(space: "todos")
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let a = directory.appendingPathComponent("a.sqlite").path
        let b = directory.appendingPathComponent("b.sqlite").path
        func run(_ arguments: String..., on database: String) async throws -> String {
            let result = try await Self.todos(arguments, database: database, server: fixture.server.url, token: fixture.token)
            #expect(result.status == 0, "todos \(arguments) failed: \(result.stderr)")
            return result.stdout
        }
        func items(_ database: String) async throws -> [Item] {
            try JSONDecoder().decode([Item].self, from: Data(try await run("list", "--json", on: database).utf8))
        }

        let milk = try await run("add", "Buy milk", on: a).trimmingCharacters(in: .whitespacesAndNewlines)
        let bread = try await run("add", "Bake bread", on: b).trimmingCharacters(in: .whitespacesAndNewlines)
        _ = try await run("sync", on: a)
        _ = try await run("sync", on: b)
        _ = try await run("sync", on: a)
        #expect(Set(try await items(a).map(\.title)) == ["Buy milk", "Bake bread"])
        #expect(Set(try await items(b).map(\.title)) == ["Buy milk", "Bake bread"])

        _ = try await run("done", milk, on: b)
        _ = try await run("rm", bread, on: a)
        _ = try await run("sync", on: b)
        _ = try await run("sync", on: a)
        _ = try await run("sync", on: b)
        for database in [a, b] {
            #expect(try await items(database).map { [$0.title, String($0.done)] } == [["Buy milk", "true"]])
            #expect(try await run("check", on: database).contains("ok"))
        }

        // A refused token says so and exits non-zero.
        let refused = try await Self.todos(["sync"], database: a, server: fixture.server.url, token: "0000")
        #expect(refused.status != 0)
        #expect(refused.stderr.contains("the sync server refused the token"), "\(refused.stderr)")
        await fixture.stop()
    }
}
