import Foundation
import GRDB
import PostgresTestSupport
import SwiduxSQLite
import SwiduxSync
import SwiduxSyncWire
import SwiduxTesting
import Testing
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Three clients with their own SQLite files, seeded random edits and offline periods,
/// through the real server and PostgreSQL: after everyone syncs until quiet, every client
/// holds the server's rows.
@Suite("Convergence through the server", .serialized)
struct ConvergenceTests {
    static var steps: Int { ProcessInfo.processInfo.environment["SWIDUX_SYNC_STEPS"].flatMap(Int.init) ?? 150 }

    @Test("3 clients, random upserts, deletes, re-inserts, parent/child pairs, offline periods: all converge")
    func threeClientsConverge() async throws {
        let seed = ProcessInfo.processInfo.environment["SWIDUX_SYNC_SEED"].flatMap(UInt64.init) ?? UInt64(Date().timeIntervalSince1970)
        var random = SeededRandomNumberGenerator(seed: seed)
        let fixture = try await SyncServerFixture.start()
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        // Small pages: a child and its parent often arrive in different pulls.
        let devices = try (0..<3).map { try Device(name: "d\($0)", directory: directory, server: fixture.server.url, token: fixture.token, pageSize: 3) }
        var online = [true, true, true]
        let parents = (0..<6).map { "p\($0)" }
        let children = (0..<12).map { "c\($0)" }

        for step in 0..<Self.steps {
            let index = Int.random(in: 0..<3, using: &random)
            let device = devices[index]
            if Int.random(in: 0..<10, using: &random) == 0 { online[index].toggle() }
            let parent = parents.randomElement(using: &random)!
            let child = children.randomElement(using: &random)!
            let text = "s\(step)"
            let position = Int.random(in: 0..<100, using: &random)
            switch Int.random(in: 0..<8, using: &random) {
            case 0, 1:   // upsert a parent
                try await device.write { db in
                    try db.execute(sql: "INSERT INTO parent (id, position, name) VALUES (?, ?, ?) ON CONFLICT(id) DO UPDATE SET name = excluded.name, position = excluded.position",
                                   arguments: [parent, position, text])
                }
            case 2, 3:   // a child with its parent (created first if missing), in one transaction: child written first
                try await device.write { db in
                    try db.execute(sql: "INSERT INTO child (id, position, parentId, text) VALUES (?, ?, ?, ?) ON CONFLICT(id) DO UPDATE SET parentId = excluded.parentId, text = excluded.text",
                                   arguments: [child, position, parent, text])
                    try db.execute(sql: "INSERT INTO parent (id, position, name) VALUES (?, ?, ?) ON CONFLICT(id) DO NOTHING", arguments: [parent, position, text])
                }
            case 4:      // delete a parent (its children go with it)
                try await device.write { db in try db.execute(sql: "DELETE FROM parent WHERE id = ?", arguments: [parent]) }
            case 5:      // delete a child
                try await device.write { db in try db.execute(sql: "DELETE FROM child WHERE id = ?", arguments: [child]) }
            case 6:      // delete and re-insert the same id (SQLiteData #418), in two transactions
                try await device.write { db in try db.execute(sql: "DELETE FROM parent WHERE id = ?", arguments: [parent]) }
                try await device.write { db in
                    try db.execute(sql: "INSERT INTO parent (id, position, name) VALUES (?, ?, ?)", arguments: [parent, position, "again " + text])
                }
            default:     // touch a parent's children: re-parent one to a parent that exists here
                try await device.write { db in
                    if let target = try String.fetchOne(db, sql: "SELECT id FROM parent ORDER BY name LIMIT 1") {
                        try db.execute(sql: "UPDATE child SET parentId = ?, text = ? WHERE id = ?", arguments: [target, text, child])
                    }
                }
            }
            if online[index], Int.random(in: 0..<3, using: &random) == 0 {
                let report = try await device.client.sync()
                #expect(report.pending == 0, "seed \(seed) step \(step): \(device.name) still has \(report.pending) pending after sync")
            }
        }

        // Everyone online: sync until a full pass changes nothing.
        var quiet = false
        for _ in 0..<12 where !quiet {
            quiet = true
            for device in devices {
                let report = try await device.client.sync()
                if report.pushed > 0 || report.pulled > 0 { quiet = false }
                #expect(report.pending == 0, "seed \(seed): \(device.name): \(report)")
            }
        }
        #expect(quiet, "seed \(seed): still changing after 12 passes")
        let server = try await serverSnapshot(server: fixture.server.url, token: fixture.token)
        for device in devices {
            let local = try await device.snapshot()
            #expect(local == server, "seed \(seed): \(device.name) differs from the server: local \(local), server \(server)")
            let report = try await device.client.sync()
            #expect(report.parked == 0, "seed \(seed): \(device.name) has parked rows")
        }
        #expect(!(server["parent"] ?? [:]).isEmpty || !(server["child"] ?? [:]).isEmpty || Self.steps < 20, "seed \(seed): nothing survived: the test exercised little")
        // A new client gets everything with its first sync.
        let late = try Device(name: "late", directory: directory, server: fixture.server.url, token: fixture.token, pageSize: 2)
        try await late.client.sync()
        #expect(try await late.snapshot() == server, "seed \(seed): a new client differs from the server")
        await fixture.stop()
    }

    @Test("A pushed mutation sent twice is applied once")
    func duplicatedPushAppliedOnce() async throws {
        let fixture = try await SyncServerFixture.start(space: "dup")
        let url = fixture.server.url.appendingPathComponent(SyncProtocol.pushPath)
        let tables = try JSONEncoder().encode(TablesRequest(tables: ["parent", "child"]))
        _ = try await send("PUT", fixture.server.url.appendingPathComponent(SyncProtocol.tablesPath), tables, token: fixture.token)
        let body = try JSONEncoder().encode(PushRequest(clientID: "dup-client", mutations: [
            SyncMutation(id: 1, changes: [SyncChange(table: "parent", id: .text("p"), kind: .insert, columns: ["name": .text("once"), "position": .integer(0)])]),
        ]))
        let first = try JSONDecoder().decode(PushResponse.self, from: try await send("POST", url, body, token: fixture.token))
        let second = try JSONDecoder().decode(PushResponse.self, from: try await send("POST", url, body, token: fixture.token))
        #expect(first.lastMutationID == 1 && second.lastMutationID == 1)
        #expect(first.results.count == 1)
        // The replay is answered with the original results (issue 29 item 7), applied once.
        #expect(second.results == first.results)
        #expect(second.acknowledged == [1])
        // One version of the row: a client pulling from scratch sees it at the first push's version.
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let device = try Device(name: "reader", directory: directory, server: fixture.server.url, token: fixture.token)
        let report = try await device.client.sync()
        #expect(report.pulled == 1)
        #expect(try await device.snapshot()["parent"] == ["t:p": ["name": .text("once"), "position": .integer(0)]])
        await fixture.stop()
    }

    private func send(_ method: String, _ url: URL, _ body: Data, token: String) async throws -> Data {
        var request = URLRequest(url: url)
        request.httpMethod = method
        request.httpBody = body
        request.setValue("Bearer \(token)", forHTTPHeaderField: "Authorization")
        request.setValue("application/json", forHTTPHeaderField: "Content-Type")
        let (data, response) = try await URLSession.shared.data(for: request)
        let status = (response as? HTTPURLResponse)?.statusCode ?? 0
        guard (200..<300).contains(status) else { throw SyncError.rejected(status: status, message: String(decoding: data, as: UTF8.self)) }
        return data
    }
}
