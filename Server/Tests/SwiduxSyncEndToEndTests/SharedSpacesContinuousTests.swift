import Foundation
import GRDB
import PostgresTestSupport
import SwiduxSQLite
import SwiduxSync
import Testing

/// `SyncSpaces` running continuously: a space shared with a user starts syncing on their
/// running device, the other members' changes in it arrive without a sync call (through the
/// one long poll), theirs are pushed as they are made, and a removal stops it.
@Suite("Shared spaces, continuous sync", .serialized)
struct SharedSpacesContinuousTests {
    /// Waits up to `seconds` for `condition`.
    func eventually(_ seconds: Double, _ condition: () async throws -> Bool) async throws -> Bool {
        let deadline = ContinuousClock.now + .seconds(seconds)
        while ContinuousClock.now < deadline {
            if try await condition() { return true }
            try await Task.sleep(for: .milliseconds(100))
        }
        return try await condition()
    }

    func texts(_ database: SwiduxDatabase, space: String) async throws -> [String] {
        try await database.writer.read { db in try String.fetchAll(db, sql: "SELECT text FROM note WHERE space = ? ORDER BY text", arguments: [space]) }
    }

    @Test("a running device picks up a space shared with it, its news and its own edits, with no sync call; removed, it stops", .timeLimit(.minutes(3)))
    func runningDevice() async throws {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let (server, token, _, _) = try await TodosJWTTests.server(in: directory)
        defer { Task { await server.stop() } }
        let aliceDB = try SwiduxDatabase(path: directory.appendingPathComponent("alice.sqlite").path, migrations: SharedSpacesTests.migrations)
        let bobDB = try SwiduxDatabase(path: directory.appendingPathComponent("bob.sqlite").path, migrations: SharedSpacesTests.migrations)
        let alice = try SyncSpaces(database: aliceDB, server: server.url, token: token("alice"), tables: SharedSpacesTests.tables)
        let bob = try SyncSpaces(database: bobDB, server: server.url, token: token("bob"), tables: SharedSpacesTests.tables)
        // A name with the characters a query or a path would take for their own.
        let family = "family & friends+1=ok/ü?#%"
        await bob.start()

        try await aliceDB.writer.write { db in
            try db.execute(sql: "INSERT INTO folder (id, name) VALUES ('l', 'Groceries')")
            try db.execute(sql: "INSERT INTO note (id, folderId, text) VALUES ('m', 'l', 'milk')")
        }
        try await alice.sync()
        try await alice.createSpace(family)
        try await alice.addMember("bob", role: .writer, to: family)
        try await aliceDB.writer.write { db in
            try db.execute(sql: "UPDATE folder SET space = ? WHERE id = 'l'", arguments: [family])
            try db.execute(sql: "UPDATE note SET space = ? WHERE folderId = 'l'", arguments: [family])
        }
        try await alice.sync()
        #expect(try await eventually(40) { try await texts(bobDB, space: family) == ["milk"] }, "the shared space reached bob's running device")

        try await aliceDB.writer.write { db in try db.execute(sql: "INSERT INTO note (id, folderId, text, space) VALUES ('e', 'l', 'eggs', ?)", arguments: [family]) }
        try await alice.sync()
        #expect(try await eventually(40) { try await texts(bobDB, space: family) == ["eggs", "milk"] }, "alice's news arrived")

        try await bobDB.writer.write { db in try db.execute(sql: "INSERT INTO note (id, folderId, text, space) VALUES ('b', 'l', 'bread', ?)", arguments: [family]) }
        #expect(try await eventually(40) {
            try await alice.sync()
            return try await texts(aliceDB, space: family) == ["bread", "eggs", "milk"]
        }, "bob's edit was pushed without a sync call")

        try await alice.removeMember("bob", from: family)
        #expect(try await eventually(40) {
            try SyncSpaces.spaces(in: bobDB).contains { $0.name == family && $0.role == nil }
        }, "the removal reached bob's running device")
        #expect(try await texts(bobDB, space: family) == ["bread", "eggs", "milk"], "bob keeps what he had")
        await bob.stop()
    }
}
