import Foundation
import GRDB
import SwiduxSQLite
@testable import SwiduxSync
import SwiduxSyncWire
import Testing

/// Issue 29 on the client's local half: exact acknowledgements, a new identity after a
/// conflict, a first sync after a scope change, oversized changes set aside.
@Suite("Client identity, scope and oversized changes")
struct IdentityTests {
    @Test("Only the mutations the answer acknowledges are deleted; the cursor stays (items 1, 7)")
    func exactAcknowledgement() async throws {
        let fixture = try Fixture(mutationBytes: 80)
        _ = try fixture.engine.apply(PullResponse(rows: [folderRow("old", "old", version: 4)], cursor: 4, hasMore: false))
        try await fixture.flush(folders: [Folder(id: "a", name: "A"), Folder(id: "b", name: "B")])
        let pending = try fixture.engine.preparePush()
        #expect(pending.count == 2)
        let first = try pending[0].decoded()
        let results = first.changes.map {
            SyncResult(table: $0.table, id: $0.id, applied: true, current: SyncRow(table: $0.table, id: $0.id, version: 9, deleted: false, columns: $0.columns))
        }
        // The server's last mutation is past both (another copy used the ids), but it acknowledges the first only.
        let ack = try fixture.engine.acknowledge(PushResponse(lastMutationID: pending[1].id + 5, results: results, acknowledged: [pending[0].id]), sent: pending)
        #expect(ack.mutations == 1)
        let engine = fixture.engine
        let stored = try await fixture.database.writer.read { db in try engine.storedPending(db).map(\.id) }
        #expect(stored == [pending[1].id])
        #expect(try fixture.outbox().count == 1)
        #expect(try fixture.engine.cursor() == 4)
    }

    @Test("After a conflict the client takes a new id and renumbers what is pending, dropping nothing (items 1, 2)")
    func reidentify() async throws {
        let fixture = try Fixture(mutationBytes: 80)
        try await fixture.flush(folders: [Folder(id: "a", name: "A"), Folder(id: "b", name: "B")])
        let before = try fixture.engine.preparePush()
        let id = try fixture.engine.clientID()
        try fixture.engine.reidentify()
        #expect(try fixture.engine.clientID() != id)
        let after = try fixture.engine.preparePush()
        #expect(after.map(\.id) == [1, 2])
        #expect(try after.map { try $0.decoded().changes } == before.map { try $0.decoded().changes })
        #expect(try fixture.engine.pendingCount() == 2 + 2)
    }

    @Test("A scope change queues every row for a first sync, the cursor at 0 (items 4, 5)")
    func rebase() async throws {
        let fixture = try Fixture()
        try await fixture.flush(folders: [Folder(id: "f", name: "F")], notes: [Note(id: "n", folderId: "f", text: "x")])
        _ = try fixture.pushAndAcknowledge()
        _ = try fixture.engine.apply(PullResponse(rows: [folderRow("g", "G", version: 200)], cursor: 200, hasMore: false, end: 200, scope: "db/1"))
        #expect(try fixture.engine.scope() == "db/1")
        #expect(try fixture.outbox().isEmpty)
        try fixture.engine.rebase()
        #expect(try fixture.engine.cursor() == 0)
        #expect(try fixture.engine.scope() == nil)
        let kinds = try fixture.engine.preparePush().flatMap { try $0.decoded().changes }.map { "\($0.table) \($0.id.key) \($0.kind)" }
        #expect(Set(kinds) == ["folder t:f insert", "folder t:g insert", "note t:n insert"])
    }

    /// Issue 43 item 6: the server cannot index a longer id (413); the client does not send it.
    @Test("A row whose id is over SyncProtocol.maxKeyBytes is set aside and listed naming the limit; the others are sent")
    func longIDSetAside() async throws {
        let fixture = try Fixture()
        let long = String(repeating: "é", count: SyncProtocol.maxKeyBytes / 2) + "x"
        let fits = String(repeating: "é", count: SyncProtocol.maxKeyBytes / 2)
        try await fixture.flush(folders: [Folder(id: long, name: "L"), Folder(id: fits, name: "F"), Folder(id: "small", name: "s")])
        let pending = try fixture.engine.preparePush()
        #expect(Set(try pending.flatMap { try $0.decoded().changes }.map(\.id)) == [.text(fits), .text("small")])
        let setAside = try fixture.engine.setAsideChanges()
        #expect(setAside.map(\.id) == [.text(long)])
        #expect(setAside.first?.description.contains("maxKeyBytes: \(SyncProtocol.maxKeyBytes)") == true, "\(setAside)")
    }

    /// Issue 43 item 6: `"caf\u{E9}"` and `"cafe\u{301}"` are equal `String`s but two rows in SQLite.
    @Test("Two ids that are canonically equivalent spellings are two rows, both pushed")
    func canonicallyEquivalentIDs() async throws {
        let fixture = try Fixture()
        // Two flushes: a store's dictionary would merge them too.
        try await fixture.flush(folders: [Folder(id: "caf\u{E9}", name: "composed")])
        try await fixture.flush(folders: [Folder(id: "cafe\u{301}", name: "decomposed")])
        #expect(try await fixture.database.writer.read { try Int.fetchOne($0, sql: "SELECT count(*) FROM \(NotesSchema.folders.name)") } == 2)
        let changes = try fixture.engine.preparePush().flatMap { try $0.decoded().changes }
        #expect(changes.count == 2)
        #expect(Set(changes.compactMap { if case .text(let id) = $0.id { Array(id.utf8) } else { nil } }).count == 2)
    }

    @Test("A change too large to send is set aside and listed; the others are sent (item 6)")
    func oversizedSetAside() async throws {
        let fixture = try Fixture()
        let engine = try SyncEngine(writer: fixture.database.writer, tables: NotesSchema.tables, maxChangeBytes: 1000)
        try await fixture.flush(folders: [Folder(id: "big", name: String(repeating: "x", count: 2000)), Folder(id: "small", name: "s")])
        let pending = try engine.preparePush()
        #expect(try pending.flatMap { try $0.decoded().changes }.map(\.id) == [.text("small")])
        #expect(try engine.setAsideChanges().map(\.id) == [.text("big")])
        // Made small again, it is sent and no longer set aside.
        _ = try engine.acknowledge(PushResponse(lastMutationID: pending[0].id, results: [], acknowledged: [pending[0].id]), sent: pending)
        try await fixture.flush(folders: [Folder(id: "big", name: "short")])
        let next = try engine.preparePush()
        #expect(try next.flatMap { try $0.decoded().changes }.map(\.id) == [.text("big")])
        _ = try engine.acknowledge(PushResponse(lastMutationID: next[0].id, results: [], acknowledged: [next[0].id]), sent: next)
        #expect(try engine.setAsideChanges().isEmpty)
    }
}
