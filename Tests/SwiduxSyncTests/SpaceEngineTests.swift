import Foundation
import GRDB
import Swidux
import SwiduxSQLite
@testable import SwiduxSync
import SwiduxSyncWire
import Testing

@Suite("One engine per space on one file")
struct SpaceEngineTests {
    @Test("A row whose space is NULL is pushed by the token's own engine only")
    func personalRowsStayPersonal() throws {
        let fixture = try SpaceFixture()
        let main = try fixture.engine(), shared = try fixture.engine("S")
        try fixture.addFolder("f", "Home", space: nil)
        try fixture.addNote("n", folder: "f", "hello", space: nil)
        #expect(try shared.pendingCount() == 0)
        #expect(try pushAndAcknowledge(shared).isEmpty)
        #expect(try pushAndAcknowledge(main).map(\.summary) == ["insert folder f", "insert note n"])
        #expect(try main.pendingCount() == 0)
        #expect(try shared.pendingCount() == 0)
    }

    @Test("A row naming space S is pushed by S's engine only; the others end with an empty outbox")
    func sharedRowsPushedByTheirSpace() throws {
        let fixture = try SpaceFixture()
        let main = try fixture.engine(), shared = try fixture.engine("S"), other = try fixture.engine("T")
        try fixture.addFolder("g", "Family", space: "S")
        try fixture.addNote("m", folder: "g", "milk", space: "S")
        #expect(try pushAndAcknowledge(main).isEmpty)
        #expect(try pushAndAcknowledge(other).isEmpty)
        #expect(try fixture.outbox(of: main).isEmpty)
        #expect(try fixture.outbox(of: other).isEmpty)
        let changes = try pushAndAcknowledge(shared)
        #expect(changes.map(\.summary) == ["insert folder g", "insert note m"])
        #expect(changes.first?.columns?["space"] == .text("S"))
        #expect(try shared.pendingCount() == 0)
    }

    @Test("A pushed row moved to another space leaves the old one as a deletion and enters the new one whole")
    func movePushesDeleteAndInsert() throws {
        let fixture = try SpaceFixture()
        let main = try fixture.engine(), shared = try fixture.engine("S")
        try fixture.addFolder("f", "Home", space: nil)
        try fixture.addNote("n", folder: "f", "hello", space: nil)
        try pushAndAcknowledge(main, from: 10)
        try fixture.move(folder: "f", to: "S")
        let left = try pushAndAcknowledge(main, from: 20)
        #expect(left.map(\.summary) == ["delete folder f", "delete note n"])
        #expect(left.map(\.baseVersion) == [10, 11])
        let entered = try pushAndAcknowledge(shared, from: 30)
        #expect(entered.map(\.summary) == ["insert folder f", "insert note n"])
        #expect(entered.first?.columns == ["name": .text("Home"), "position": .integer(0), "space": .text("S")])
        #expect(entered.last?.columns == ["folderId": .text("f"), "text": .text("hello"), "position": .integer(0), "space": .text("S")])
        #expect(entered.allSatisfy { $0.baseVersion == nil })
        // The row is S's now: its later changes are not the old space's to push again.
        try fixture.execute("UPDATE folder SET name = 'Renamed' WHERE id = 'f'")
        #expect(try main.pendingCount() == 0)
        #expect(try pushAndAcknowledge(main).isEmpty)
        #expect(try pushAndAcknowledge(shared, from: 40).map(\.summary) == ["update folder f"])
    }

    @Test("A row moved back to the space it left is pushed there whole")
    func moveBackPushesWholeRow() throws {
        let fixture = try SpaceFixture()
        let main = try fixture.engine(), shared = try fixture.engine("S")
        // A server that merges by column: an update of a row it has sends only the changed columns.
        try main.writer.write { db in try main.schema.setValue("merges", 1, db) }
        try fixture.addFolder("f", "Home", space: nil)
        try pushAndAcknowledge(main, from: 10)
        try fixture.move(folder: "f", to: "S")
        try pushAndAcknowledge(main, from: 20)
        try pushAndAcknowledge(shared, from: 30)
        try fixture.move(folder: "f", to: nil)
        let back = try pushAndAcknowledge(main, from: 40)
        #expect(back.count == 1)
        // The old space holds a tombstone: the row's columns all go back, not only `space`.
        #expect(back.first?.columns == ["name": .text("Home"), "position": .integer(0), "space": .null])
        #expect(try pushAndAcknowledge(shared, from: 50).map(\.summary) == ["delete folder f"])
    }

    @Test("A row moved back while its leaving deletion is in flight is sent whole again")
    func moveBackWhileLeaving() throws {
        let fixture = try SpaceFixture()
        let main = try fixture.engine(), shared = try fixture.engine("S")
        try main.writer.write { db in try main.schema.setValue("merges", 1, db) }
        try fixture.addFolder("f", "Home", space: nil)
        try pushAndAcknowledge(main, from: 10)
        try fixture.move(folder: "f", to: "S")
        let leaving = try main.preparePush()
        #expect(try leaving.first?.decoded().changes.map(\.summary) == ["delete folder f"])
        try fixture.move(folder: "f", to: nil)
        _ = try main.acknowledge(PushResponse(lastMutationID: leaving[0].id, results: [SyncResult(
            table: "folder", id: .text("f"), applied: true, current: tombstone("folder", "f", version: 20))]), sent: leaving)
        // The space holds a tombstone now: the row goes back whole, not as an update of `space`.
        let back = try pushAndAcknowledge(main, from: 30)
        #expect(back.map(\.summary) == ["insert folder f"])
        #expect(back.first?.columns == ["name": .text("Home"), "position": .integer(0), "space": .null])
        #expect(try pushAndAcknowledge(shared).isEmpty)
    }

    @Test("A pulled deletion of a row that now names another space is not applied; one of a row still here is")
    func pulledDeletionOfMovedRow() throws {
        let fixture = try SpaceFixture()
        let main = try fixture.engine(), shared = try fixture.engine("S")
        _ = try main.apply(PullResponse(rows: [
            spacedFolderRow("f", "Moved", space: nil, version: 1), spacedFolderRow("g", "Stays", space: nil, version: 2),
        ], cursor: 2, hasMore: false))
        // Another device moved f to S: S's engine pulled it first.
        _ = try shared.apply(PullResponse(rows: [spacedFolderRow("f", "Moved", space: "S", version: 1)], cursor: 1, hasMore: false))
        let result = try main.apply(PullResponse(rows: [tombstone("folder", "f", version: 3), tombstone("folder", "g", version: 4)],
                                                 cursor: 4, hasMore: false))
        #expect(result.applied == 1)
        #expect(try fixture.folderIDs() == ["f"])
        #expect(try main.pendingCount() == 0)
        #expect(try shared.pendingCount() == 0)
        // f is S's: its changes are pushed by S only.
        try fixture.execute("UPDATE folder SET name = 'Edited' WHERE id = 'f'")
        #expect(try main.pendingCount() == 0)
        #expect(try pushAndAcknowledge(main).isEmpty)
        #expect(try pushAndAcknowledge(shared).map(\.summary) == ["update folder f"])
    }

    @Test("A pulled version older than the row's move out of its space does not take the row back")
    func staleVersionOfMovedRow() throws {
        let fixture = try SpaceFixture()
        let main = try fixture.engine(), shared = try fixture.engine("S")
        // Another device moved f from S to its own space: the insertion there (54) came first,
        // S's deletion (82) is still to come, and S still lists f as it was (30).
        _ = try main.apply(PullResponse(rows: [spacedFolderRow("f", "Moved", space: nil, version: 54)], cursor: 54, hasMore: false))
        let stale = try shared.apply(PullResponse(rows: [spacedFolderRow("f", "Old", space: "S", version: 30)], cursor: 60, hasMore: false))
        #expect(stale.skipped == 1)
        _ = try shared.apply(PullResponse(rows: [tombstone("folder", "f", version: 82)], cursor: 82, hasMore: false))
        #expect(try fixture.database.writer.read { db in try Row.fetchAll(db, sql: "SELECT name, space FROM folder") }
                == [["name": "Moved", "space": nil as String?]])
        #expect(try main.pendingCount() == 0)
        #expect(try shared.pendingCount() == 0)
    }

    @Test("A row another space knows, written by a pull, is not queued by that space's engine")
    func pulledWritesAreNoEchoElsewhere() throws {
        let fixture = try SpaceFixture()
        let main = try fixture.engine(), shared = try fixture.engine("S")
        _ = try main.apply(PullResponse(rows: [spacedFolderRow("f", "Home", space: nil, version: 1)], cursor: 1, hasMore: false))
        // S's outbox holds a change: its pull writes row by row, through the journal.
        try fixture.addFolder("g", "Mine", space: "S")
        _ = try shared.apply(PullResponse(rows: [spacedFolderRow("f", "Home", space: "S", version: 5)], cursor: 5, hasMore: false))
        #expect(try fixture.outbox(of: main).isEmpty)
        #expect(try fixture.outbox(of: shared) == ["folder g I"])
    }

    @Test("A row that moves while its push to the old space is in flight is pushed again to the new one, after it")
    func moveWhileInFlight() throws {
        let fixture = try SpaceFixture()
        let main = try fixture.engine(), shared = try fixture.engine("S")
        try fixture.addFolder("r", "Moving", space: "S")
        let inFlight = try shared.preparePush()
        try fixture.move(folder: "r", to: nil)
        #expect(try pushAndAcknowledge(main, from: 77).map(\.summary) == ["insert folder r"])
        let change = try #require(try inFlight.first?.decoded().changes.first)
        _ = try shared.acknowledge(PushResponse(lastMutationID: inFlight[0].id, results: [SyncResult(
            table: "folder", id: change.id, applied: true, current: SyncRow(table: "folder", id: change.id, version: 81, deleted: false))]),
                                   sent: inFlight)
        // The old space's version (81) is newer than the new one's (77): the new space gets the row again.
        let again = try pushAndAcknowledge(main, from: 90)
        #expect(again.map(\.summary) == ["update folder r"])
        #expect(again.first?.columns?["space"] == .null)
        #expect(try pushAndAcknowledge(shared, from: 95).map(\.summary) == ["delete folder r"])
    }

    @Test("A space's first install on a file holding rows queues only that space's rows")
    func firstInstallQueuesOwnRows() throws {
        let fixture = try SpaceFixture()
        try fixture.addFolder("p", "Personal", space: nil)
        try fixture.addNote("pn", folder: "p", "mine", space: nil)
        try fixture.addFolder("s", "Shared", space: "S")
        try fixture.addNote("sn", folder: "s", "ours", space: "S")
        try fixture.addFolder("t", "Other", space: "T")
        try fixture.execute("INSERT INTO tag (id, label) VALUES ('x', 'red')")
        let shared = try fixture.engine("S")
        #expect(try fixture.outbox(of: shared) == ["folder s I", "note sn I"])
        let main = try fixture.engine()
        #expect(try main.pendingCount() == 3)
        #expect(try pushAndAcknowledge(main).map(\.summary) == ["insert folder p", "insert note pn", "insert tag x"])
        #expect(try pushAndAcknowledge(shared).map(\.summary) == ["insert folder s", "insert note sn"])
        #expect(try fixture.outbox(of: main).isEmpty)
    }

    @Test("A table without a space column is never pushed by a shared space's engine")
    func tableWithoutSpaceColumnIsPersonal() throws {
        let fixture = try SpaceFixture()
        try fixture.execute("INSERT INTO tag (id, label) VALUES ('x', 'red')")
        let main = try fixture.engine(), shared = try fixture.engine("S")
        try fixture.execute("INSERT INTO tag (id, label) VALUES ('y', 'blue')")
        try fixture.execute("UPDATE tag SET label = 'green' WHERE id = 'x'")
        #expect(try shared.pendingCount() == 0)
        #expect(try pushAndAcknowledge(shared).isEmpty)
        #expect(try pushAndAcknowledge(main).map(\.summary) == ["insert tag x", "insert tag y"])
        try fixture.execute("DELETE FROM tag WHERE id = 'x'")
        #expect(try pushAndAcknowledge(shared).isEmpty)
        #expect(try pushAndAcknowledge(main).map(\.summary) == ["delete tag x"])
        // An engine of a space whose tables name no space at all.
        let tagsOnly = try fixture.engine("T", tables: [SyncTable(name: "tag")])
        try fixture.execute("INSERT INTO tag (id, label) VALUES ('z', 'pink')")
        #expect(try tagsOnly.pendingCount() == 0)
        #expect(try pushAndAcknowledge(tagsOnly).isEmpty)
    }

    @Test("Each engine counts its own pending changes: a row is counted twice only while it moves")
    func pendingCountsPerSpace() throws {
        let fixture = try SpaceFixture()
        let main = try fixture.engine(), shared = try fixture.engine("S")
        try fixture.addFolder("f", "Home", space: nil)
        try fixture.addFolder("g", "Family", space: "S")
        #expect(try main.pendingCount() == 1)
        #expect(try shared.pendingCount() == 1)
        try pushAndAcknowledge(main)
        try pushAndAcknowledge(shared)
        try fixture.execute("UPDATE folder SET name = 'Kin' WHERE id = 'g'")
        #expect(try main.pendingCount() == 0)
        #expect(try shared.pendingCount() == 1)
        try pushAndAcknowledge(shared)
        try fixture.execute("DELETE FROM folder WHERE id = 'g'")
        try fixture.execute("DELETE FROM folder WHERE id = 'f'")
        #expect(try main.pendingCount() == 1)
        #expect(try shared.pendingCount() == 1)
        #expect(try pushAndAcknowledge(main).map(\.summary) == ["delete folder f"])
        #expect(try pushAndAcknowledge(shared).map(\.summary) == ["delete folder g"])
        // A row created and deleted before any push: nobody's.
        try fixture.addFolder("h", "Brief", space: "S")
        try fixture.execute("DELETE FROM folder WHERE id = 'h'")
        #expect(try pushAndAcknowledge(main).isEmpty)
        #expect(try pushAndAcknowledge(shared).isEmpty)
        // A move: the old space's deletion and the new one's insertion.
        try fixture.addFolder("k", "Moving", space: nil)
        try pushAndAcknowledge(main)
        try fixture.move(folder: "k", to: "S")
        #expect(try main.pendingCount() == 1)
        #expect(try shared.pendingCount() == 1)
    }

    @Test("A row deleted while its insertion is in flight is deleted on the server too")
    func deletionWhileInFlight() throws {
        let fixture = try SpaceFixture()
        let main = try fixture.engine(), shared = try fixture.engine("S")
        try fixture.addFolder("g", "Family", space: "S")
        let pending = try shared.preparePush()
        try fixture.execute("DELETE FROM folder WHERE id = 'g'")
        let change = try #require(try pending.first?.decoded().changes.first)
        _ = try shared.acknowledge(PushResponse(lastMutationID: pending[0].id, results: [SyncResult(
            table: "folder", id: change.id, applied: true,
            current: SyncRow(table: "folder", id: change.id, version: 5, deleted: false, columns: change.columns))]), sent: pending)
        #expect(try pushAndAcknowledge(shared, from: 6).map(\.summary) == ["delete folder g"])
        #expect(try pushAndAcknowledge(main).isEmpty)
    }

    @Test("A shared space's state tables are its own: client id, cursor, versions, suffix")
    func stateTablesAreDistinct() throws {
        let fixture = try SpaceFixture()
        let main = try fixture.engine(), shared = try fixture.engine("S"), other = try fixture.engine("T")
        #expect(shared.schema.outbox == "swidux_sync_outbox_s1")
        #expect(other.schema.outbox == "swidux_sync_outbox_s2")
        #expect(try Set([main.clientID(), shared.clientID(), other.clientID()]).count == 3)
        _ = try shared.apply(PullResponse(rows: [spacedFolderRow("g", "Family", space: "S", version: 7)], cursor: 7, hasMore: false))
        #expect(try shared.cursor() == 7)
        #expect(try main.cursor() == 0)
        #expect(try other.cursor() == 0)
        let versions = try fixture.database.writer.read { db in
            try (Int.fetchOne(db, sql: "SELECT count(*) FROM \(main.schema.version)") ?? -1,
                 Int.fetchOne(db, sql: "SELECT count(*) FROM \(shared.schema.version)") ?? -1)
        }
        #expect(versions == (0, 1))
        // Made again on the same file: the same suffix and state.
        let again = try fixture.engine("S")
        #expect(again.schema.outbox == "swidux_sync_outbox_s1")
        #expect(try again.clientID() == shared.clientID())
        #expect(try again.cursor() == 7)
        let main2 = try fixture.engine()
        #expect(try main2.clientID() == main.clientID())
    }

    @Test("A space column the table does not have is a setup error naming the table and the column", arguments: [nil, "S"])
    func missingSpaceColumn(space: String?) throws {
        let fixture = try SpaceFixture()
        let tables = [SyncTable(name: "folder", spaceColumn: "space"), SyncTable(name: "tag", spaceColumn: "owner_space")]
        do {
            _ = try fixture.engine(space, tables: tables)
            Issue.record("the engine was made")
        } catch let SyncError.local(error as SyncSetupError) {
            #expect(error.message.contains("\"tag\""))
            #expect(error.message.contains("\"owner_space\""))
        }
    }

    @Test("A rebase queues again only the rows the engine's space pushes")
    func rebaseQueuesOwnRows() throws {
        let fixture = try SpaceFixture()
        let main = try fixture.engine(), shared = try fixture.engine("S"), other = try fixture.engine("T")
        try fixture.addFolder("p", "Personal", space: nil)
        try fixture.addFolder("s", "Shared", space: "S")
        try fixture.addNote("sn", folder: "s", "ours", space: "S")
        try fixture.addFolder("t", "Other", space: "T")
        try fixture.execute("INSERT INTO tag (id, label) VALUES ('x', 'red')")
        for engine in [main, shared, other] { try pushAndAcknowledge(engine) }
        try shared.rebase()
        #expect(try fixture.outbox(of: shared) == ["folder s I", "note sn I"])
        #expect(try shared.pendingCount() == 2)
        #expect(try main.pendingCount() == 0)
        try main.rebase()
        #expect(try fixture.outbox(of: main) == ["folder p I", "tag x I"])
        #expect(try pushAndAcknowledge(shared).map(\.summary) == ["insert folder s", "insert note sn"])
        #expect(try other.pendingCount() == 0)
    }
}
