import Foundation
import GRDB
import Swidux
import SwiduxSQLite
@testable import SwiduxSync
import SwiduxSyncWire
import Testing

@Suite("Applying pulled pages and push answers")
struct PullTests {
    @Test("Pulled rows are applied without echo; a local row a pulled deletion cascades to is pushed")
    func noEchoButCascadesPushed() async throws {
        let fixture = try Fixture()
        _ = try fixture.engine.apply(PullResponse(rows: [
            folderRow("f", "Home", version: 1), noteRow("a", folder: "f", "pulled", version: 2),
        ], cursor: 2, hasMore: false))
        #expect(try fixture.folderIDs() == ["f"])
        #expect(try fixture.outbox().isEmpty)
        try await fixture.flush(notes: [Note(id: "local", folderId: "f", text: "mine")])
        try fixture.pushAndAcknowledge()
        let result = try fixture.engine.apply(PullResponse(rows: [tombstone("folder", "f", version: 9)], cursor: 9, hasMore: false))
        #expect(result.applied == 1)
        #expect(try fixture.folderIDs().isEmpty)
        #expect(try fixture.notes().isEmpty)
        // The pulled row itself is not pushed back; the rows its cascade deleted are.
        #expect(Set(try fixture.outbox()) == ["note a D", "note local D"])
        #expect(try fixture.engine.cursor() == 9)
    }

    @Test("A row with a local change not acknowledged keeps it over a pulled version")
    func localChangeStaysOnTop() async throws {
        let fixture = try Fixture()
        _ = try fixture.engine.apply(PullResponse(rows: [folderRow("f", "server", version: 1)], cursor: 1, hasMore: false))
        try await fixture.flush(folders: [Folder(id: "f", name: "local")])
        let result = try fixture.engine.apply(PullResponse(rows: [folderRow("f", "other client", version: 5)], cursor: 5, hasMore: false))
        #expect(result.skipped == 1)
        #expect(try await fixture.database.writer.read { db in try String.fetchOne(db, sql: "SELECT name FROM folder") } == "local")
        let change = try fixture.engine.preparePush().first?.decoded().changes.first
        #expect(change?.columns?["name"] == .text("local"))
        // Not based on the skipped version: if it was a deletion, this update must lose.
        #expect(change?.baseVersion == 1)
    }

    @Test("A refused update (deleted on the server) deletes the row locally, and is not pushed back")
    func refusedUpdateDeletes() async throws {
        let fixture = try Fixture()
        try await fixture.flush(folders: [Folder(id: "f", name: "A")], notes: [Note(id: "n", folderId: "f", text: "x")])
        try fixture.pushAndAcknowledge()
        try await fixture.flush(folders: [Folder(id: "f", name: "renamed")])
        let pending = try fixture.engine.preparePush()
        let change = try #require(try pending.first?.decoded().changes.first)
        #expect(change.kind == .update)
        let ack = try fixture.engine.acknowledge(PushResponse(lastMutationID: pending[0].id, results: [
            SyncResult(table: "folder", id: change.id, applied: false, current: tombstone("folder", "f", version: 150)),
        ]), sent: pending)
        #expect(ack.refused == 1)
        #expect(try fixture.folderIDs().isEmpty)
        // Its child went with it (cascade): that deletion is pushed; the folder's is not.
        #expect(try fixture.outbox() == ["note n D"])
        #expect(try fixture.engine.pendingCount() == 1)
    }

    @Test("A child pulled before its parent is parked and applied when the parent arrives, in either order", arguments: [false, true])
    func childBeforeParent(samePage: Bool) async throws {
        let fixture = try Fixture()
        if samePage {
            _ = try fixture.engine.apply(PullResponse(rows: [
                noteRow("n", folder: "f", "child", version: 1), folderRow("f", "parent", version: 2),
            ], cursor: 2, hasMore: false))
        } else {
            let first = try fixture.engine.apply(PullResponse(rows: [noteRow("n", folder: "f", "child", version: 1)], cursor: 1, hasMore: true))
            #expect(first.parked == 1)
            #expect(try fixture.notes().isEmpty)
            #expect(try fixture.engine.parkedCount() == 1)
            #expect(try fixture.engine.cursor() == 1)
            _ = try fixture.engine.apply(PullResponse(rows: [folderRow("f", "parent", version: 2)], cursor: 2, hasMore: false))
        }
        #expect(try fixture.notes() == [Note(id: "n", folderId: "f", text: "child")])
        #expect(try fixture.folderIDs() == ["f"])
        #expect(try fixture.engine.parkedCount() == 0)
        #expect(try fixture.outbox().isEmpty)
    }

    @Test("A parked row is dropped when a newer version of it arrives")
    func parkedRowReplaced() async throws {
        let fixture = try Fixture()
        _ = try fixture.engine.apply(PullResponse(rows: [noteRow("n", folder: "missing", "old", version: 1)], cursor: 1, hasMore: false))
        _ = try fixture.engine.apply(PullResponse(rows: [folderRow("f", "F", version: 2), noteRow("n", folder: "f", "new", version: 3)], cursor: 3, hasMore: false))
        #expect(try fixture.notes() == [Note(id: "n", folderId: "f", text: "new")])
        #expect(try fixture.engine.parkedCount() == 0)
    }

    @Test("A row deleted and created again with the same id survives (SQLiteData #418)")
    func deleteAndReinsert() async throws {
        let fixture = try Fixture()
        _ = try fixture.engine.apply(PullResponse(rows: [folderRow("f", "one", version: 1)], cursor: 1, hasMore: false))
        _ = try fixture.engine.apply(PullResponse(rows: [tombstone("folder", "f", version: 2)], cursor: 2, hasMore: false))
        _ = try fixture.engine.apply(PullResponse(rows: [folderRow("f", "two", version: 3)], cursor: 3, hasMore: false))
        #expect(try fixture.folderIDs() == ["f"])
        // Locally: delete then insert again is pushed as an insert (applies over the tombstone).
        try await fixture.flush(deleteFolders: ["f"])
        try await fixture.flush(folders: [Folder(id: "f", name: "three")])
        let change = try fixture.engine.preparePush().first?.decoded().changes.first
        #expect(change?.kind == .insert)
        #expect(change?.columns?["name"] == .text("three"))
    }

    @Test("The cursor is stored in the page's transaction: a page that fails leaves rows and cursor as they were")
    func cursorInThePageTransaction() async throws {
        let fixture = try Fixture()
        _ = try fixture.engine.apply(PullResponse(rows: [folderRow("f", "one", version: 1)], cursor: 1, hasMore: false))
        #expect(try fixture.engine.cursor() == 1)
        // Make the file full: the page's large row cannot be written.
        try await fixture.database.writer.writeWithoutTransaction { db in
            let pages = try Int.fetchOne(db, sql: "PRAGMA page_count") ?? 0
            try db.execute(sql: "PRAGMA max_page_count = \(pages + 1)")
        }
        let big = SyncRow(table: "folder", id: .text("big"), version: 3, deleted: false,
                          columns: ["name": .text(String(repeating: "x", count: 100_000)), "position": .integer(1)])
        #expect(throws: (any Error).self) {
            try fixture.engine.apply(PullResponse(rows: [folderRow("g", "two", version: 2), big], cursor: 3, hasMore: false))
        }
        #expect(try fixture.engine.cursor() == 1)
        #expect(try fixture.folderIDs() == ["f"])
    }

    @Test("A store following the database sees pulled rows, and writes nothing back")
    @MainActor
    func followingStoreSeesPulledRows() async throws {
        let fixture = try Fixture()
        var state = NotesState()
        let persistence = try fixture.database.persistence(hydrating: &state, [
            .entities(\.notes, in: NotesSchema.notes),
            .entities(\.folders, in: NotesSchema.folders),
        ])
        let store = Store(initialState: state, reducer: NotesReducer(), environment: (), persistence: persistence)
        try store.follow(fixture.database, every: .milliseconds(5))
        store.send(.putFolder(Folder(id: "mine", name: "Mine")))
        try await store.flush()
        try fixture.pushAndAcknowledge()
        _ = try fixture.engine.apply(PullResponse(rows: [
            folderRow("f", "pulled", version: 7, position: 1), noteRow("n", folder: "f", "hello", version: 8),
        ], cursor: 8, hasMore: false))
        #expect(await eventually { store.state.notes["n"]?.text == "hello" && store.state.folders["f"] != nil })
        try await store.flush()
        #expect(try fixture.outbox().isEmpty)
        #expect(try fixture.engine.pendingCount() == 0)
        #expect(store.state.folders.ids.count == 2)
    }

    @Test("A mutation acknowledged without results (answer lost, applied earlier) pulls everything again")
    func lostAnswerResetsCursor() async throws {
        let fixture = try Fixture()
        _ = try fixture.engine.apply(PullResponse(rows: [folderRow("f", "one", version: 4)], cursor: 4, hasMore: false))
        try await fixture.flush(folders: [Folder(id: "f", name: "two")])
        let pending = try fixture.engine.preparePush()
        _ = try fixture.engine.acknowledge(PushResponse(lastMutationID: pending[0].id, results: []), sent: pending)
        #expect(try fixture.engine.cursor() == 0)
        #expect(try fixture.engine.pendingCount() == 0)
    }
}
