import Foundation
import GRDB
import PostgresTestSupport
import SwiduxSQLite
import SwiduxSync
import SwiduxSyncWire
import Testing

/// A first sync large enough for several push requests and pull pages (issue 31: the next
/// request is built, and the next page asked for, while one is in flight), while the file
/// keeps changing: nothing is lost, nothing is sent twice over a newer change, and a second
/// device ends with what the first holds.
@Suite("Pipelined first sync")
struct PipelinedSyncTests {
    @Test("A first push of several requests while rows change, are deleted and added: the server and a fresh device end with the file's rows")
    func firstSyncWhileWriting() async throws {
        let fixture = try await SyncServerFixture.start(space: "pipeline")
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let source = try Device(name: "source", directory: directory, server: fixture.server.url, token: fixture.token)
        // About 11 MB of rows: two requests of at most 8 MB.
        let padding = String(repeating: "x", count: 900)
        try await source.write { db in
            for parent in 0..<20 {
                try db.execute(sql: "INSERT INTO parent (id, name) VALUES (?, ?)", arguments: ["p\(parent)", "parent \(parent)"])
            }
            let insert = try db.makeStatement(sql: "INSERT INTO child (id, parentId, text) VALUES (?, ?, ?)")
            for child in 0..<12_000 {
                try insert.execute(arguments: ["c\(child)", "p\(child % 20)", "child \(child) \(padding)"])
            }
        }
        // While the first sync runs: rows of the first, middle and last requests change, some
        // are deleted (one parent with its children), new ones are added.
        let writer = Task {
            for round in 0..<40 {
                try await source.write { db in
                    try db.execute(sql: "UPDATE child SET text = ? WHERE id IN (?, ?, ?)",
                                   arguments: ["changed \(round)", "c\(round)", "c\(6_000 + round)", "c\(11_999 - round)"])
                    try db.execute(sql: "INSERT INTO child (id, parentId, text) VALUES (?, 'p1', ?)", arguments: ["new\(round)", "new \(round)"])
                    if round == 20 { try db.execute(sql: "DELETE FROM parent WHERE id = 'p7'") }
                }
                try await Task.sleep(for: .milliseconds(25))
            }
        }
        var report = try await source.client.sync()
        try await writer.value
        // What changed after the last request was built is pushed by the next sync.
        report = try await source.client.sync()
        #expect(report.pending == 0)
        let expected = try await source.snapshot()
        #expect(expected["child"]?.count == 12_000 - 600 + 40)
        #expect(expected["child"]?[SyncValue.text("c5").key]?["text"] == .text("changed 5"))
        let server = try await serverSnapshot(server: fixture.server.url, token: fixture.token)
        #expect(server == expected)
        // A fresh device pulls it all, pages asked for ahead of their turn.
        let target = try Device(name: "target", directory: directory, server: fixture.server.url, token: fixture.token, pageSize: 2000)
        let pulled = try await target.client.sync()
        #expect(pulled.pulled >= 12_000 - 600 + 40 + 19)
        #expect(try await target.snapshot() == expected)
        await fixture.stop()
    }
}
