import Foundation
import GRDB
import SwiduxSQLite
@testable import SwiduxSync
import SwiduxSyncWire
import Testing

/// A file made by the version before the change journal and the sync outbox shared one trigger
/// generator: the journal's and the outbox's own triggers, written here as that version wrote
/// them, and a local edit still waiting in the outbox. Opened by this version, nothing is lost
/// and nothing is logged twice.
@Suite("A file of the older layout")
struct OldLayoutTests {
    /// The journal and outbox triggers of `folder` (columns `id`, `position`, `name`) as the
    /// older version created them.
    static let oldTriggers = """
        CREATE TABLE swidux_change (
            seq INTEGER PRIMARY KEY AUTOINCREMENT,
            tbl TEXT NOT NULL,
            rid NOT NULL,
            placed INTEGER NOT NULL DEFAULT 0,
            origin TEXT
        );
        CREATE TRIGGER swidux_change_prune AFTER INSERT ON swidux_change WHEN NEW.seq % 256 = 0
        BEGIN
            DELETE FROM swidux_change WHERE seq <= NEW.seq - 10000;
        END;
        CREATE TRIGGER IF NOT EXISTS "swidux_change_folder_insert" AFTER INSERT ON "folder"
        BEGIN
            INSERT INTO swidux_change (tbl, rid, placed) VALUES ('folder', NEW."id", 1);
        END;
        CREATE TRIGGER IF NOT EXISTS "swidux_change_folder_update" AFTER UPDATE ON "folder"
        BEGIN
            INSERT INTO swidux_change (tbl, rid, placed) SELECT 'folder', OLD."id", 0 WHERE OLD."id" IS NOT NEW."id";
            INSERT INTO swidux_change (tbl, rid, placed)
                VALUES ('folder', NEW."id", OLD."id" IS NOT NEW."id" OR OLD."position" IS NOT NEW."position");
        END;
        CREATE TRIGGER IF NOT EXISTS "swidux_change_folder_delete" AFTER DELETE ON "folder"
        BEGIN
            INSERT INTO swidux_change (tbl, rid) VALUES ('folder', OLD."id");
        END;
        CREATE TABLE swidux_sync_outbox (
            seq INTEGER PRIMARY KEY AUTOINCREMENT, tbl TEXT NOT NULL, rid NOT NULL, op TEXT NOT NULL, cols TEXT);
        CREATE INDEX swidux_sync_outbox_key ON swidux_sync_outbox (tbl, rid);
        CREATE TABLE swidux_sync_state (key TEXT PRIMARY KEY NOT NULL, value);
        INSERT INTO swidux_sync_state (key, value) VALUES ('cursor', 10), ('nextMutation', 3), ('clientID', 'old'),
            ('merges', 1), ('columns:folder', 'position' || char(31) || 'name');
        CREATE TRIGGER IF NOT EXISTS "swidux_sync_folder_insert" AFTER INSERT ON "folder" WHEN (SELECT value FROM swidux_sync_state WHERE key = 'applying') IS NOT 'folder'
        BEGIN
            INSERT INTO swidux_sync_outbox (tbl, rid, op) VALUES ('folder', NEW."id", 'I');
        END;
        CREATE TRIGGER IF NOT EXISTS "swidux_sync_folder_update" AFTER UPDATE ON "folder" WHEN (SELECT value FROM swidux_sync_state WHERE key = 'applying') IS NOT 'folder'
        BEGIN
            INSERT INTO swidux_sync_outbox (tbl, rid, op) SELECT 'folder', OLD."id", 'D' WHERE OLD."id" IS NOT NEW."id";
            INSERT INTO swidux_sync_outbox (tbl, rid, op, cols)
                VALUES ('folder', NEW."id", CASE WHEN OLD."id" IS NOT NEW."id" THEN 'I' ELSE 'U' END,
                        CASE WHEN OLD."id" IS NOT NEW."id" THEN NULL ELSE (CASE WHEN OLD."position" IS NOT NEW."position" THEN char(31) || 'position' ELSE '' END || CASE WHEN OLD."name" IS NOT NEW."name" THEN char(31) || 'name' ELSE '' END) END);
        END;
        CREATE TRIGGER IF NOT EXISTS "swidux_sync_folder_delete" AFTER DELETE ON "folder"
        BEGIN
            INSERT INTO swidux_sync_outbox (tbl, rid, op) VALUES ('folder', OLD."id", 'D');
        END;
        """

    @Test("pending outbox entries and journal entries survive; later changes are logged once in each")
    func opensWithoutLoss() async throws {
        let directory = try TemporaryDirectory()
        let path = directory.path("old.sqlite")
        do {
            let database = try SwiduxDatabase(path: path, migrations: NotesSchema.migrations)
            try await database.writer.write { db in
                try db.execute(sql: Self.oldTriggers)
                // The older version's first sync: `f` pushed at version 5, then edited offline.
                try db.execute(sql: """
                    CREATE TABLE swidux_sync_tables (tbl TEXT PRIMARY KEY NOT NULL);
                    CREATE TABLE swidux_sync_version (tbl TEXT NOT NULL, rid NOT NULL, version INTEGER NOT NULL, PRIMARY KEY (tbl, rid)) WITHOUT ROWID;
                    INSERT INTO swidux_sync_tables (tbl) VALUES ('folder');
                    INSERT INTO folder (id, position, name) VALUES ('f', 0, 'Home');
                    DELETE FROM swidux_sync_outbox;
                    INSERT INTO swidux_sync_version (tbl, rid, version) VALUES ('folder', 'f', 5);
                    UPDATE folder SET name = 'Old edit' WHERE id = 'f';
                    INSERT INTO folder (id, position, name) VALUES ('g', 1, 'New');
                    """)
            }
        }
        let database = try SwiduxDatabase(path: path, migrations: NotesSchema.migrations)
        let engine = try SyncEngine(writer: database.writer, tables: NotesSchema.tables)
        try await database.writer.write { db in
            try db.installChangeJournal(for: NotesSchema.folders)
            try db.execute(sql: "UPDATE folder SET position = 7 WHERE id = 'f'")
        }
        let (outbox, journal, triggers, ops) = try await database.writer.read { db in
            (try Row.fetchAll(db, sql: "SELECT tbl, rid, op, ifnull(replace(cols, char(31), ','), 'NULL') FROM swidux_sync_outbox ORDER BY seq")
                .map { row in (0..<4).map { row[$0] as String } },
             try Row.fetchAll(db, sql: "SELECT tbl, rid, placed FROM swidux_change ORDER BY seq").map { "\($0[0] as String) \($0[1] as String) \($0[2] as Int)" },
             try String.fetchAll(db, sql: "SELECT name FROM sqlite_master WHERE type = 'trigger' AND tbl_name = 'folder' ORDER BY name"),
             try String.fetchAll(db, sql: "SELECT ifnull(op, '-') FROM swidux_change ORDER BY seq"))
        }
        // The old edit, the old insert, the new edit: each once.
        #expect(outbox == [["folder", "f", "U", ",name"], ["folder", "g", "I", "NULL"], ["folder", "f", "U", ",position"]])
        #expect(journal == ["folder f 1", "folder f 0", "folder g 1", "folder f 1"])
        // One set of triggers, the journal's: the outbox is fed from it, its own are dropped.
        #expect(triggers == ["swidux_change_folder_delete", "swidux_change_folder_insert", "swidux_change_folder_update"])
        // The journal's older entries have no op; the new one has, and fed the outbox.
        #expect(ops == ["-", "-", "-", "U"])
        #expect(try await database.writer.read { db in try SyncSchema.main.isInstalled(in: db, tables: [.table(NotesSchema.folders)]) })
        // The registry of logged tables holds what each installer knows: the sync engine
        // (installed first) that the table is synced, the journal its position column.
        #expect(try await database.writer.read { db in try LoggedTables.entry("folder", in: db) }
                == LoggedTables.Entry(table: "folder", idColumn: "id", positionColumn: "position", synced: true))
        // The push carries every change made before and after the upgrade.
        let changes = try engine.preparePush().flatMap { try $0.decoded().changes }
        let byRow = Dictionary(changes.map { ($0.id, $0) }, uniquingKeysWith: { $1 })
        #expect(byRow[.text("f")]?.kind == .update)
        #expect(byRow[.text("f")]?.columns == ["name": .text("Old edit"), "position": .integer(7)])
        #expect(byRow[.text("f")]?.baseVersion == 5)
        #expect(byRow[.text("g")]?.kind == .insert)
        #expect(byRow[.text("g")]?.columns == ["name": .text("New"), "position": .integer(1)])
    }
}
