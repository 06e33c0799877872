import Foundation
import GRDB
import PostgresTestSupport
import SwiduxSQLite
import SwiduxSync
import SwiduxSyncWire
import Testing

/// Issue 43: the conflicts API of `SyncClient` — listed, announced, dismissed, resolved.
@Suite("Conflicts API", .serialized)
struct ConflictAPITests {
    private func name(_ device: Device) async throws -> String? {
        try await device.database.writer.read { db in try String.fetchOne(db, sql: "SELECT name FROM parent WHERE id = 'p'") }
    }

    @Test("a replaced value is listed on the device that wrote it, announced on newConflicts, and dismissed")
    func listedAndDismissed() async throws {
        let fixture = try await SyncServerFixture.start(space: "conflicts-api")
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let a = try Device(name: "a", directory: directory, server: fixture.server.url, token: fixture.token)
        let b = try Device(name: "b", directory: directory, server: fixture.server.url, token: fixture.token)
        try await a.write { db in try db.execute(sql: "INSERT INTO parent (id, position, name) VALUES ('p', 0, 'milk')") }
        try await a.client.sync()
        try await b.client.sync()
        try await a.write { db in try db.execute(sql: "UPDATE parent SET name = 'oat milk' WHERE id = 'p'") }
        try await b.write { db in try db.execute(sql: "UPDATE parent SET name = 'rice milk', position = 4 WHERE id = 'p'") }
        #expect(try await a.client.sync().conflicts.isEmpty)
        #expect(try await b.client.sync().conflicts.isEmpty)
        let report = try await a.client.sync()
        #expect(report.conflicts.count == 1)
        let conflict = try #require(report.conflicts.first)
        #expect(conflict.table == "parent" && conflict.id == .text("p") && conflict.column == "name")
        #expect(conflict.kept == .text("rice milk") && conflict.replaced == .text("oat milk"))
        #expect(conflict.version > conflict.replacedVersion)
        #expect(try await name(a) == "rice milk")
        var announced = a.client.newConflicts.makeAsyncIterator()
        #expect(await announced.next() == conflict)
        #expect(try await a.client.conflicts() == [conflict])
        #expect(try await b.client.conflicts().isEmpty)
        // Listed until dismissed, also across a restart; a later sync does not list it again.
        #expect(try await a.client.sync().conflicts.isEmpty)
        #expect(try SyncClient.conflicts(in: a.database) == [conflict])
        try await a.client.dismiss(conflict)
        #expect(try await a.client.conflicts().isEmpty)
        await fixture.stop()
    }

    @Test("a table's resolver gets mine and theirs; what it returns is written and pushed, and the conflict is not listed")
    func resolver() async throws {
        let fixture = try await SyncServerFixture.start(space: "conflicts-resolver")
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let a = try Device(name: "a", directory: directory, server: fixture.server.url, token: fixture.token)
        let b = try Device(name: "b", directory: directory, server: fixture.server.url, token: fixture.token)
        await a.client.setResolver(for: "parent") { merge in
            guard merge.column == "name", case .text(let mine) = merge.mine, case .text(let theirs) = merge.theirs else { return nil }
            return .text(mine + " + " + theirs)
        }
        try await a.write { db in try db.execute(sql: "INSERT INTO parent (id, position, name) VALUES ('p', 0, 'milk')") }
        try await a.client.sync()
        try await b.client.sync()
        try await a.write { db in try db.execute(sql: "UPDATE parent SET name = 'oat milk' WHERE id = 'p'") }
        try await b.write { db in try db.execute(sql: "UPDATE parent SET name = 'rice milk' WHERE id = 'p'") }
        try await a.client.sync()
        try await b.client.sync()
        let report = try await a.client.sync()
        #expect(report.conflicts.isEmpty && report.pending == 0, "\(report)")
        #expect(try await a.client.conflicts().isEmpty)
        #expect(try await name(a) == "oat milk + rice milk")
        try await b.client.sync()
        #expect(try await name(b) == "oat milk + rice milk")
        // The resolved value was an ordinary change: no conflict for b either.
        #expect(try await b.client.conflicts().isEmpty)
        await fixture.stop()
    }
}
