import Foundation
import GRDB
import SwiduxSQLite
@testable import SwiduxSync
import SwiduxSyncWire
import Testing

/// Issue 43 on the client: the outbox knows which columns an update changed, a push sends
/// only those (to a server that merges by column), an older outbox upgrades in place, and a
/// column a migration adds is filled from the server.
@Suite("Changes by column")
struct ColumnChangesTests {
    /// `fixture` as if it had synced with a server that merges by column: rows pushed,
    /// versions recorded, the server's `conflicts` mark seen.
    private func synced(_ fixture: Fixture) async throws {
        try await fixture.flush(folders: [Folder(id: "f", name: "Home")], notes: [Note(id: "n", folderId: "f", text: "milk")])
        try fixture.pushAndAcknowledge()
        try await fixture.database.writer.write { db in try fixture.engine.noteServerMerges(db) }
    }

    private func cols(_ fixture: Fixture) throws -> [String?] {
        try fixture.database.writer.read { db in
            try Row.fetchAll(db, sql: "SELECT cols FROM swidux_sync_outbox ORDER BY seq").map {
                ($0[0] as String?).map { SyncSchema.columnNames($0).joined(separator: ",") }
            }
        }
    }

    @Test("an update records the columns it changed; a push sends only those, folded per row, with its base")
    func updateSendsChangedColumns() async throws {
        let fixture = try Fixture()
        try await synced(fixture)
        try fixture.run("UPDATE note SET text = 'oat milk' WHERE id = 'n'")
        try fixture.run("UPDATE note SET position = 4 WHERE id = 'n'")
        try fixture.run("UPDATE folder SET name = name WHERE id = 'f'")
        #expect(try cols(fixture) == ["text", "position", ""])
        let changes = try fixture.pushAndAcknowledge(from: 200)
        #expect(changes.count == 2)
        let note = try #require(changes.first { $0.table == "note" })
        #expect(note.kind == .update)
        #expect(note.columns == ["text": .text("oat milk"), "position": .integer(4)])
        #expect(note.baseVersion != nil)
        let folder = try #require(changes.first { $0.table == "folder" })
        #expect(folder.kind == .update && folder.columns == [:])
        // A Swidux flush of a changed entity: only its changed column.
        try await fixture.flush(notes: [Note(id: "n", folderId: "f", text: "bread")])
        let flushed = try fixture.pushAndAcknowledge(from: 300)
        #expect(flushed.map(\.columns) == [["text": .text("bread")]])
    }

    @Test("an insert, a re-insert and an unversioned update push whole rows; so do updates to a server that does not merge")
    func wholeRows() async throws {
        let fixture = try Fixture()
        try await fixture.flush(folders: [Folder(id: "f", name: "Home")])
        try fixture.run("UPDATE folder SET name = 'Work' WHERE id = 'f'")
        #expect(try fixture.pushAndAcknowledge().map(\.columns) == [["name": .text("Work"), "position": .integer(0)]])
        // The server never said it merges: whole rows.
        try fixture.run("UPDATE folder SET name = 'Office' WHERE id = 'f'")
        let whole = try fixture.pushAndAcknowledge(from: 200)
        #expect(whole.map(\.kind) == [.update] && whole.map(\.columns) == [["name": .text("Office"), "position": .integer(0)]])
        try await fixture.database.writer.write { db in try fixture.engine.noteServerMerges(db) }
        try fixture.run("DELETE FROM folder WHERE id = 'f'; INSERT INTO folder (id, position, name) VALUES ('f', 1, 'Again'); UPDATE folder SET name = 'Again!' WHERE id = 'f'")
        let again = try fixture.pushAndAcknowledge(from: 300)
        #expect(again.map(\.kind) == [.insert] && again.map(\.columns) == [["name": .text("Again!"), "position": .integer(1)]])
        try fixture.run("UPDATE folder SET position = 2 WHERE id = 'f'")
        #expect(try fixture.pushAndAcknowledge(from: 400).map(\.columns) == [["position": .integer(2)]])
    }

    @Test("an outbox made before issue 43 upgrades in place: its entries push whole rows, new ones their columns")
    func outboxUpgrade() async throws {
        let directory = try TemporaryDirectory()
        let path = directory.path("old.sqlite")
        do {
            let database = try SwiduxDatabase(path: path, migrations: NotesSchema.migrations)
            try await database.writer.write { db in
                // The tables and triggers an older version made (no `cols`).
                try db.execute(sql: """
                    CREATE TABLE swidux_sync_outbox (seq INTEGER PRIMARY KEY AUTOINCREMENT, tbl TEXT NOT NULL, rid NOT NULL, op TEXT NOT NULL);
                    CREATE INDEX swidux_sync_outbox_key ON swidux_sync_outbox (tbl, rid);
                    CREATE TABLE swidux_sync_state (key TEXT PRIMARY KEY NOT NULL, value);
                    CREATE TABLE swidux_sync_tables (tbl TEXT PRIMARY KEY NOT NULL);
                    CREATE TABLE swidux_sync_version (tbl TEXT NOT NULL, rid NOT NULL, version INTEGER NOT NULL, PRIMARY KEY (tbl, rid)) WITHOUT ROWID;
                    CREATE TABLE swidux_sync_pending (id INTEGER PRIMARY KEY, payload BLOB NOT NULL, through_seq INTEGER NOT NULL);
                    CREATE TABLE swidux_sync_parked (tbl TEXT NOT NULL, rid NOT NULL, version INTEGER NOT NULL, payload BLOB NOT NULL, PRIMARY KEY (tbl, rid));
                    CREATE TABLE swidux_sync_set_aside (tbl TEXT NOT NULL, rid NOT NULL, bytes INTEGER NOT NULL, PRIMARY KEY (tbl, rid));
                    INSERT INTO swidux_sync_state (key, value) VALUES ('cursor', 10), ('nextMutation', 3), ('clientID', 'old'), ('merges', 1);
                    INSERT INTO swidux_sync_tables (tbl) VALUES ('folder'), ('note');
                    INSERT INTO folder (id, position, name) VALUES ('f', 0, 'Home');
                    INSERT INTO swidux_sync_version (tbl, rid, version) VALUES ('folder', 'f', 5);
                    CREATE TRIGGER swidux_sync_folder_update AFTER UPDATE ON folder WHEN (SELECT value FROM swidux_sync_state WHERE key = 'applying') IS NOT 'folder'
                    BEGIN INSERT INTO swidux_sync_outbox (tbl, rid, op) VALUES ('folder', NEW.id, 'U'); END;
                    UPDATE folder SET name = 'Old edit' WHERE id = 'f';
                    """)
            }
        }
        let database = try SwiduxDatabase(path: path, migrations: NotesSchema.migrations)
        let engine = try SyncEngine(writer: database.writer, tables: NotesSchema.tables)
        try await database.writer.write { db in try db.execute(sql: "UPDATE folder SET position = 7 WHERE id = 'f'") }
        let entries = try await database.writer.read { db in
            try Row.fetchAll(db, sql: "SELECT op, cols FROM swidux_sync_outbox ORDER BY seq").map { [$0[0] as String, ($0[1] as String?) ?? "NULL"] }
        }
        #expect(entries == [["U", "NULL"], ["U", "\u{1F}position"]])
        let pending = try engine.preparePush()
        let changes = try pending.flatMap { try $0.decoded().changes }
        // The old entry folds with the new one: the whole row.
        #expect(changes.map(\.columns) == [["name": .text("Old edit"), "position": .integer(7)]])
        #expect(changes.map(\.baseVersion) == [5])
        #expect(try await database.writer.read { db in try SyncSchema.main.isInstalled(in: db, tables: NotesSchema.tables) })
        // The outbox's own trigger is gone: the journal's feed it.
        let triggers = try await database.writer.read { db in
            try String.fetchAll(db, sql: "SELECT name FROM sqlite_master WHERE type = 'trigger' AND tbl_name = 'folder' ORDER BY name")
        }
        #expect(triggers == ["swidux_change_folder_delete", "swidux_change_folder_insert", "swidux_change_folder_update"])
    }

    @Test("a migration adding a column: the trigger compares it, and the table is filled from the server")
    func addedColumnIsFilled() async throws {
        let fixture = try Fixture()
        try await synced(fixture)
        try await fixture.flush(folders: [Folder(id: "g", name: "Work")])
        try fixture.pushAndAcknowledge(from: 150)
        #expect(try fixture.engine.pendingRefills().isEmpty)
        // The app's migration (another version of it) adds `color`.
        try fixture.run("ALTER TABLE folder ADD COLUMN color INTEGER NOT NULL DEFAULT 0")
        try fixture.engine.checkSchema()
        #expect(try fixture.engine.pendingRefills().map(\.table.name) == ["folder"])
        // A local change of `g` waits to be pushed: its changed column is not filled.
        try fixture.run("UPDATE folder SET color = 9, name = 'Job' WHERE id = 'g'")
        #expect(try cols(fixture) == ["name,color"])
        let page = PullResponse(rows: [
            SyncRow(table: "folder", id: .text("f"), version: 100, deleted: false, columns: ["name": .text("Server"), "position": .integer(0), "color": .integer(3)]),
            SyncRow(table: "folder", id: .text("g"), version: 150, deleted: false, columns: ["name": .text("Work"), "position": .integer(0), "color": .integer(5)]),
            SyncRow(table: "folder", id: .text("gone"), version: 151, deleted: false, columns: ["name": .text("x"), "color": .integer(1)]),
        ], cursor: 151, hasMore: false)
        #expect(try fixture.engine.refill(page, table: SyncTable(name: "folder")) == 1)
        // `g` has an entry naming `color`: not written; `f`: only the new column (its name stays).
        let rows = try await fixture.database.writer.read { db in
            try Row.fetchAll(db, sql: "SELECT id, name, color FROM folder ORDER BY id").map { "\($0[0] as String) \($0[1] as String) \($0[2] as Int)" }
        }
        #expect(rows == ["f Home 3", "g Job 9"])
        #expect(try fixture.engine.pendingRefills().isEmpty)
        // Nothing the fill wrote is pushed.
        #expect(try cols(fixture) == ["name,color"])
        #expect(try await fixture.database.writer.read { db in try SyncSchema.main.isInstalled(in: db, tables: NotesSchema.tables) })
    }

    @Test("a push answer's merged row is written, but for the columns a local change still pushes")
    func mergedAnswerIsWritten() async throws {
        let fixture = try Fixture()
        try await synced(fixture)
        try fixture.run("UPDATE note SET text = 'oat milk' WHERE id = 'n'")
        let pending = try fixture.engine.preparePush()
        // Changed again while in flight: its text stays local.
        try fixture.run("UPDATE note SET text = 'rice milk' WHERE id = 'n'")
        let merged = SyncRow(table: "note", id: .text("n"), version: 300, deleted: false,
                             columns: ["text": .text("oat milk"), "position": .integer(8), "folderId": .text("f")])
        let answer = PushResponse(lastMutationID: pending.last!.id, results: [
            SyncResult(table: "note", id: .text("n"), applied: true, current: merged),
        ], acknowledged: pending.map(\.id), conflicts: 0)
        _ = try fixture.engine.acknowledge(answer, sent: pending)
        let row = try await fixture.database.writer.read { db in
            try Row.fetchOne(db, sql: "SELECT text, position FROM note WHERE id = 'n'").map { "\($0[0] as String) \($0[1] as Int)" }
        }
        #expect(row == "rice milk 8")
        #expect(try cols(fixture) == ["text"])
    }
}

private extension Fixture {
    /// Plain SQL in one transaction.
    func run(_ sql: String) throws { try database.writer.write { db in try db.execute(sql: sql) } }
}
