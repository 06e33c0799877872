import Foundation
import SwiduxSyncWire
import Testing

@Suite("Conflicts")
struct ConflictTests {
    @Test("last writer wins in server order")
    func lastWriterWins() async throws {
        try await TestServer.with { server in
            let a = try await server.client(space: "home")
            let b = try await server.client(space: "home")
            let created = try await a.push([todo("1", title: "v0")])
            let base = created.results[0].current.version
            // Both edit the same version; b's push reaches the server last and wins.
            try await a.push([todo("1", .update, title: "from a", base: base)])
            let last = try await b.push([todo("1", .update, title: "from b", base: base)])
            #expect(last.results[0].applied)
            let rows = try await a.pull().rows
            #expect(rows.count == 1 && rows[0].columns?["title"] == .text("from b"))
            #expect(rows[0].version == last.results[0].current.version)
        }
    }

    @Test("delete wins over a stale update: refused with the tombstone as current")
    func deleteWins() async throws {
        try await TestServer.with { server in
            let a = try await server.client(space: "home")
            let b = try await server.client(space: "home")
            let created = try await a.push([todo("1")])
            let base = created.results[0].current.version
            let deleted = try await a.push([todo("1", .delete, base: base)])
            let tombstone = deleted.results[0].current
            let before = try await server.storedRows()
            let stale = try await b.push([todo("1", .update, title: "stale", base: base)])
            #expect(stale.lastMutationID == 1)
            #expect(!stale.results[0].applied)
            #expect(stale.results[0].current == SyncRow(table: "todo", id: .text("1"), version: tombstone.version, deleted: true))
            #expect(try await server.storedRows() == before)
            // An update that saw the deletion (based on the tombstone's version) applies.
            let informed = try await b.push([todo("1", .update, title: "informed", base: tombstone.version)])
            #expect(informed.results[0].applied && !informed.results[0].current.deleted)
        }
    }

    @Test("an insert after a delete resurrects the row (a re-inserted id comes back everywhere)")
    func insertAfterDelete() async throws {
        try await TestServer.with { server in
            let a = try await server.client(space: "home")
            let b = try await server.client(space: "home")
            try await a.push([todo("1")])
            let seen = try await b.pull()
            try await a.push([todo("1", .delete)])
            let back = try await a.push([todo("1", .insert, title: "again")])
            #expect(back.results[0].applied)
            let rows = try await b.pull(after: seen.cursor).rows
            #expect(rows.count == 1)
            #expect(!rows[0].deleted && rows[0].columns?["title"] == .text("again"))
            #expect(rows[0].version == back.results[0].current.version)
        }
    }
}
