import Foundation
import GRDB
import Logging
import PostgresTestSupport
import SwiduxSyncServer
import SwiduxSyncWire
import Testing

/// A rule of the server (a title has 1 to 100 characters: stricter than `todos`, which allows
/// 500) through real `todos` processes, a
/// real PostgreSQL and a server with that rule: a refused change never blocks the rest of
/// the push, the device's row returns to the server's, and `todos` lists the refusal.
@Suite("todos: the server's rules", .serialized)
struct TodosRulesTests {
    struct Item: Decodable, Equatable {
        var id: String
        var title: String
    }

    struct Listed: Decodable {
        var table: String
        var id: String
        var kind: String?
        var reason: String?
    }

    static let reason = "a title has 1 to 100 characters"

    @Test("a rule refusing one row of a push of ten: nine reach the other device, the refused new row is deleted, an emptied title comes back; todos lists both")
    func oneOfTen() async throws {
        let postgres = try await PostgresCluster.shared().createDatabase()
        var logger = Logger(label: "todos-rules-test")
        logger.logLevel = .critical
        var server = SyncServer(postgres: try PostgresURL(postgres), port: 0, logger: logger)
        server.rules["todoItem"] = { input in
            guard let after = input.after else { return .accept }
            guard case .text(let title)? = after["title"], (1...100).contains(title.count) else { return .refuse(reason: Self.reason) }
            return .accept
        }
        let (port, task) = try await server.start()
        defer { task.cancel() }
        let url = try #require(URL(string: "http://127.0.0.1:\(port)"))
        let token = try await ServerProcess.createToken(postgres: postgres, space: "rules")
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let a = directory.appendingPathComponent("a.sqlite").path, b = directory.appendingPathComponent("b.sqlite").path
        func run(_ arguments: String..., on database: String) async throws -> String {
            let result = try await TodosSyncTests.todos(arguments, database: database, server: url, token: token)
            #expect(result.status == 0, "todos \(arguments) exited \(result.status): \(result.stderr)")
            return result.stdout
        }
        func items(_ database: String) async throws -> [Item] {
            try JSONDecoder().decode([Item].self, from: Data(try await run("list", "--json", on: database).utf8)).sorted { $0.title < $1.title }
        }
        func listed(_ database: String) async throws -> [Listed] {
            try JSONDecoder().decode([Listed].self, from: Data(try await run("conflicts", "--json", on: database).utf8))
        }

        var ids: [String] = []
        for index in 0..<10 {
            let title = index == 7 ? String(repeating: "x", count: 101) : "task \(index)"
            ids.append(try await run("add", title, on: a).trimmingCharacters(in: .whitespacesAndNewlines))
        }
        let synced = try await run("sync", on: a)
        #expect(synced.contains("1 refused: item \(ids[7]) refused: \(Self.reason)"), "\(synced)")
        let nine = (0..<10).filter { $0 != 7 }.map { Item(id: ids[$0], title: "task \($0)") }
        #expect(try await items(a) == nine)
        _ = try await run("sync", on: b)
        #expect(try await items(b) == nine)

        // An emptied title (plain SQL: todos refuses it itself) is refused; the title comes back.
        let queue = try DatabaseQueue(path: a)
        let blob = withUnsafeBytes(of: try #require(UUID(uuidString: ids[3])).uuid) { Data($0) }
        try await queue.write { db in try db.execute(sql: "UPDATE todoItem SET title = '' WHERE id = ?", arguments: [blob]) }
        let again = try await run("sync", on: a)
        #expect(again.contains("1 refused: item \(ids[3]) refused: \(Self.reason)"), "\(again)")
        #expect(try await items(a) == nine)
        let refusals = try await listed(a)
        #expect(Set(refusals.map(\.id)) == [ids[3], ids[7]])
        #expect(refusals.allSatisfy { $0.table == "todoItem" && $0.kind == "refused" && $0.reason == Self.reason })
        // Dismissed, they are gone; nothing is pending.
        _ = try await run("conflicts", "--dismiss", on: a)
        #expect(try await listed(a).isEmpty)
        #expect(try await run("sync", on: a).contains("pushed 0 row changes"))
        #expect(try await items(b) == nine)
    }
}
