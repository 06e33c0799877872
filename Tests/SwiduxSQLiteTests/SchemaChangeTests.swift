import Foundation
import GRDB
import SwiduxSQLite
import SwiduxTestSupport
import Testing

/// Issue 27 item 4: a follower notices schema changes by another process.
@MainActor
@Suite("External changes: another process changes the schema", .timeLimit(.minutes(3)))
struct SchemaChangeTests {
    /// SQLite's standard table rebuild (create, copy, drop, rename), with a new column.
    static let rebuildItems = """
        PRAGMA foreign_keys = OFF;
        BEGIN;
        CREATE TABLE citem_new (
            id TEXT NOT NULL PRIMARY KEY,
            position INTEGER NOT NULL,
            clistId TEXT NOT NULL REFERENCES clist(id) ON DELETE CASCADE,
            title TEXT NOT NULL,
            extra TEXT NOT NULL DEFAULT ''
        );
        INSERT INTO citem_new (id, position, clistId, title) SELECT id, position, clistId, title FROM citem;
        DROP TABLE citem;
        ALTER TABLE citem_new RENAME TO citem;
        UPDATE citem SET title = 'renamed while unjournaled' WHERE id = 'i1';
        COMMIT;
        PRAGMA foreign_keys = ON;
        """

    @Test("A table rebuilt by another process: the follower re-installs the journal's triggers, re-hydrates, and keeps following")
    func rebuiltTableKeepsBeingFollowed() async throws {
        let directory = try TemporaryDirectory()
        let path = directory.path("app.sqlite")
        let log = directory.path("child.log")
        let window = try CWindow(path: path)
        window.send { state in
            state.lists["L"] = CList(id: "L", name: "list")
            state.items["i1"] = CItem(id: "i1", clistId: "L", title: "one")
        }
        try await window.store.flush()
        #expect(try await window.waitUntilEqualToFile())

        #expect(try await runRawSQL(Self.rebuildItems, on: path, log: log) == 0)
        // The rebuild dropped the triggers; the follower puts them back.
        #expect(await eventually {
            (try? window.database.writer.read { db in try Int.fetchOne(db, sql: """
                SELECT count(*) FROM sqlite_master WHERE type = 'trigger' AND tbl_name = 'citem' AND name LIKE 'swidux_change_%'
                """) }) == 3
        })
        // What the rebuild changed without a journal arrives by the re-hydration.
        #expect(await eventually { window.store.state.items["i1"]?.title == "renamed while unjournaled" })
        // Later commits to the rebuilt table are journaled and reach the store.
        #expect(try await runRawSQL("INSERT INTO citem (id, position, clistId, title) VALUES ('i2', 1, 'L', 'two')", on: path, log: log) == 0)
        #expect(await eventually { window.store.state.items["i2"]?.title == "two" })
        #expect(try await window.waitUntilEqualToFile())
    }

    @Test("A schema migrated by a newer app version is reported, naming the file and the unknown migration, and not followed")
    func newerSchemaIsReported() async throws {
        let directory = try TemporaryDirectory()
        let path = directory.path("app.sqlite")
        let log = directory.path("child.log")
        let captured = CapturedLog(minimum: .error)
        let window = try CWindow(path: path, logger: captured.logger)
        window.send { $0.lists["L"] = CList(id: "L", name: "list") }
        try await window.store.flush()
        #expect(try await window.waitUntilEqualToFile())

        #expect(try await runRawSQL("""
            BEGIN;
            ALTER TABLE clist ADD COLUMN color TEXT;
            INSERT INTO grdb_migrations (identifier) VALUES ('v9-colors');
            COMMIT;
            """, on: path, log: log) == 0)
        #expect(await eventually {
            captured.messages.contains { $0.contains(path) && $0.contains("v9-colors") && $0.contains("stopped following") }
        })
    }
}
