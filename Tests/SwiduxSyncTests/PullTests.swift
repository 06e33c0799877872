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

    @Test("A parked row older than this client's acknowledged push of its id is dropped: it does not come back when its parent arrives")
    func parkedRowDroppedByOwnPush() async throws {
        // Found by the convergence test (seed 1795824614): own rows are not pulled back (issue
        // 31), so the pulled page that used to drop the stale parked row never came.
        let fixture = try Fixture()
        _ = try fixture.engine.apply(PullResponse(rows: [noteRow("n", folder: "f", "old", version: 1)], cursor: 1, hasMore: false))
        #expect(try fixture.engine.parkedCount() == 1)
        // Here, the note is written in another folder, then deleted; the push is acknowledged.
        try await fixture.flush(folders: [Folder(id: "g", name: "G")], notes: [Note(id: "n", folderId: "g", text: "mine")])
        try await fixture.flush(deleteNotes: ["n"])
        try fixture.pushAndAcknowledge(from: 10)
        #expect(try fixture.engine.parkedCount() == 0)
        // The parked note's parent arrives: the note stays deleted.
        _ = try fixture.engine.apply(PullResponse(rows: [folderRow("f", "F", version: 20)], cursor: 20, hasMore: false))
        #expect(try fixture.notes().isEmpty)
        #expect(try fixture.engine.pendingCount() == 0)
    }

    @Test("A pulled child of a parent this client knows deleted is an orphan the server kept: deleted here and its deletion pushed, not parked forever")
    func orphanOfADeletedParentIsDeletedAndPushed() async throws {
        // Found by the hostile convergence test (seed 1795828006): a client that wrote the
        // child before seeing its parent's deletion never cascaded it (its file was copied,
        // restored or moved to another space); every client parked the child forever while
        // the server held it.
        let fixture = try Fixture()
        _ = try fixture.engine.apply(PullResponse(rows: [folderRow("f", "F", version: 1)], cursor: 1, hasMore: false))
        _ = try fixture.engine.apply(PullResponse(rows: [tombstone("folder", "f", version: 2)], cursor: 2, hasMore: false))
        #expect(try fixture.folderIDs().isEmpty)
        let result = try fixture.engine.apply(PullResponse(rows: [noteRow("n", folder: "f", "orphan", version: 3)], cursor: 3, hasMore: false))
        #expect(result.parked == 0)
        #expect(try fixture.engine.parkedCount() == 0)
        #expect(try fixture.notes().isEmpty)
        let pushed = try fixture.pushAndAcknowledge(from: 10)
        #expect(pushed.map(\.kind) == [.delete] && pushed.map(\.id) == [.text("n")], "\(pushed)")
        // A child whose parent this client never saw still waits for it.
        _ = try fixture.engine.apply(PullResponse(rows: [noteRow("m", folder: "g", "early", version: 11)], cursor: 11, hasMore: false))
        #expect(try fixture.engine.parkedCount() == 1)
        _ = try fixture.engine.apply(PullResponse(rows: [folderRow("g", "G", version: 12)], cursor: 12, hasMore: false))
        #expect(try fixture.notes().map(\.id) == ["m"])
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

    @Test("A following store takes pulled rows in as a sync engine's (source sync), another writer's as external (issue 32)")
    @MainActor
    func pulledRowsArriveWithSourceSync() async throws {
        let fixture = try Fixture()
        var state = NotesState()
        let persistence = try fixture.database.persistence(hydrating: &state, [
            .entities(\.notes, in: NotesSchema.notes),
            .entities(\.folders, in: NotesSchema.folders),
        ])
        let sources = SourceLog()
        let store = Store(initialState: state, reducer: NotesReducer(), environment: (), middleware: [sources], persistence: persistence)
        try store.follow(fixture.database, every: .milliseconds(5))
        // Another connection's plain SQL: external.
        let other = try DatabaseQueue(path: fixture.directory.path("app.sqlite"))
        try await other.write { db in
            try db.execute(sql: "INSERT INTO folder (id, position, name) VALUES ('plain', 1, 'by hand')")
        }
        #expect(await eventually { store.state.folders["plain"] != nil })
        // A pulled page: sync.
        _ = try fixture.engine.apply(PullResponse(rows: [
            folderRow("f", "pulled", version: 7, position: 2), noteRow("n", folder: "f", "hello", version: 8),
        ], cursor: 8, hasMore: false))
        #expect(await eventually { store.state.notes["n"]?.text == "hello" })
        // Both in one batch of the feed: each row with its own writer.
        try await other.write { db in
            try db.execute(sql: "UPDATE folder SET name = 'by hand again' WHERE id = 'plain'")
        }
        _ = try fixture.engine.apply(PullResponse(rows: [folderRow("g", "pulled too", version: 9, position: 3)], cursor: 9, hasMore: false))
        #expect(await eventually { store.state.folders["g"] != nil && store.state.folders["plain"]?.name == "by hand again" })
        let seen = sources.entries
        #expect(seen.first?.source == .external, "\(seen)")
        #expect(seen.contains { $0.source == .sync && $0.folders.contains("f") }, "\(seen)")
        #expect(seen.contains { $0.source == .sync && $0.folders.contains("g") }, "\(seen)")
        #expect(!seen.contains { $0.source == .sync && $0.folders.contains("plain") }, "\(seen)")
        #expect(!seen.contains { $0.source == .external && ($0.folders.contains("f") || $0.folders.contains("g")) }, "\(seen)")
        #expect(seen.filter { $0.source == .sync }.allSatisfy { $0.origin.hasPrefix("sync (sqlite:") }, "\(seen)")
        try? other.close()
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

/// Records the source and the changed folder ids of every batch of external changes a store takes in.
@MainActor
private final class SourceLog: Middleware {
    typealias State = NotesState
    typealias Action = NotesAction
    struct Entry: CustomStringConvertible {
        var origin: String
        var source: ActionSource
        var folders: Set<String>
        var description: String { "\(source) \(origin) \(folders.sorted())" }
    }
    var entries: [Entry] = []
    private var names: [String: String] = [:]

    func didApplyExternalChanges(_ changes: AppliedExternalChanges, state: NotesState) {
        // The folders this batch added or renamed.
        var changed: Set<String> = []
        for folder in state.folders where names[folder.id] != folder.name { changed.insert(folder.id) }
        names = Dictionary(uniqueKeysWithValues: state.folders.map { ($0.id, $0.name) })
        entries.append(Entry(origin: changes.origin, source: ActionSource(externalOrigin: changes.origin), folders: changed))
    }
}
