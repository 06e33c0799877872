import Foundation
import GRDB
import PostgresTestSupport
import SwiduxSQLite
import SwiduxSync
import SwiduxSyncWire
import Testing

/// Two JWT users sharing folders and their notes through ``SyncSpaces``: a folder moved into a
/// shared space (its `space` column) reaches the members, writers' edits travel both ways, a
/// reader's are refused, a removed member keeps what they had, and the owner's other devices
/// get the moved rows once whichever space they pull first.
@Suite("Shared spaces of JWT users, through SyncSpaces", .serialized)
struct SharedSpacesTests {
    static let tables = [SyncTable(name: "folder", spaceColumn: "space"), SyncTable(name: "note", spaceColumn: "space")]
    static let migrations = SwiduxMigrations { m in
        m.register("v1") { db in
            try db.execute(sql: """
                CREATE TABLE folder (id TEXT PRIMARY KEY NOT NULL, position INTEGER NOT NULL DEFAULT 0, name TEXT NOT NULL, space TEXT);
                CREATE TABLE note (id TEXT PRIMARY KEY NOT NULL, position INTEGER NOT NULL DEFAULT 0,
                                   folderId TEXT NOT NULL REFERENCES folder(id) ON DELETE CASCADE, text TEXT NOT NULL, space TEXT);
                CREATE INDEX note_folder ON note(folderId);
                """)
        }
    }

    /// A user's device: its file and the SyncSpaces syncing every space of the user.
    struct Device {
        let database: SwiduxDatabase
        let spaces: SyncSpaces

        init(_ name: String, in directory: URL, server: URL, token: String) throws {
            database = try SwiduxDatabase(path: directory.appendingPathComponent("\(name).sqlite").path, migrations: SharedSpacesTests.migrations)
            spaces = try SyncSpaces(database: database, server: server, token: token, tables: SharedSpacesTests.tables)
        }

        func execute(_ sql: String, _ arguments: StatementArguments = []) async throws {
            try await database.writer.write { db in try db.execute(sql: sql, arguments: arguments) }
        }

        /// `id space text` of each note, and `id space name` of each folder, sorted.
        func rows() async throws -> [String] {
            try await database.writer.read { db in
                try Row.fetchAll(db, sql: """
                    SELECT 'folder ' || id || ' ' || ifnull(space, '-') || ' ' || name FROM folder
                    UNION ALL SELECT 'note ' || id || ' ' || ifnull(space, '-') || ' ' || text FROM note ORDER BY 1
                    """).map { $0[0] }
            }
        }
    }

    @Test("alice moves a folder into a shared space: bob gets it, both edit it, her second devices get it once", .timeLimit(.minutes(3)))
    func writerSharesBothWays() async throws {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let (server, token, _, _) = try await TodosJWTTests.server(in: directory)
        defer { Task { await server.stop() } }
        let phone = try Device("alice-phone", in: directory, server: server.url, token: token("alice"))
        let laptop = try Device("alice-laptop", in: directory, server: server.url, token: token("alice"))
        let tablet = try Device("alice-tablet", in: directory, server: server.url, token: token("alice"))
        let bob = try Device("bob", in: directory, server: server.url, token: token("bob"))

        try await phone.execute("""
            INSERT INTO folder (id, name) VALUES ('f', 'Groceries'), ('p', 'Private');
            INSERT INTO note (id, folderId, text) VALUES ('n1', 'f', 'milk'), ('n2', 'f', 'bread'), ('d', 'p', 'diary');
            """)
        try await phone.spaces.sync()
        // Her other devices have the folder before it is shared: the move must not lose or double it.
        try await laptop.spaces.sync()
        try await tablet.spaces.sync()
        #expect(try await tablet.rows().count == 5)

        try await phone.spaces.createSpace("family")
        try await phone.spaces.addMember("bob", role: .writer, to: "family")
        #expect(try await phone.spaces.members(of: "family").contains(SyncSpace.Member(user: "bob", role: .writer)))
        try await phone.execute("UPDATE folder SET space = 'family' WHERE id = 'f'; UPDATE note SET space = 'family' WHERE folderId = 'f'")
        try await phone.spaces.sync()
        #expect(try await phone.spaces.pendingChanges() == 0)

        let shared = ["folder f family Groceries", "note n1 family milk", "note n2 family bread"]
        try await bob.spaces.sync()
        #expect(try await bob.rows() == shared, "bob gets the shared folder only")

        try await bob.execute("UPDATE note SET text = 'oat milk' WHERE id = 'n1'")
        try await bob.spaces.sync()
        try await phone.spaces.sync()
        let edited = ["folder f family Groceries", "note n1 family oat milk", "note n2 family bread"]
        #expect(try await phone.rows() == (["folder p - Private", "note d - diary"] + edited).sorted())

        // The laptop pulls its personal space first (its deletions of the moved rows), then
        // the shared one; the tablet the shared one first: each ends with every row once.
        try await laptop.spaces.sync()
        #expect(try await laptop.rows() == (["folder p - Private", "note d - diary"] + edited).sorted())
        try await tablet.spaces.client(for: "family").sync()
        try await tablet.spaces.sync()
        #expect(try await tablet.rows() == (["folder p - Private", "note d - diary"] + edited).sorted())
        for device in [laptop, tablet] { #expect(try await device.spaces.pendingChanges() == 0) }

        // An edit on the laptop reaches bob; nothing of hers that is not shared does.
        try await laptop.execute("UPDATE note SET text = 'rye bread' WHERE id = 'n2'")
        try await laptop.spaces.sync()
        try await bob.spaces.sync()
        #expect(try await bob.rows() == ["folder f family Groceries", "note n1 family oat milk", "note n2 family rye bread"])

        // alice takes the folder back: her personal space gets it before the shared one
        // loses it, and her laptop syncs in between — the shared space's older version of a
        // note (bob's edit, which the laptop has not pulled yet) must not take the note back,
        // nor the shared space's deletion then remove it.
        try await bob.execute("UPDATE note SET text = 'soy milk' WHERE id = 'n1'")
        try await bob.spaces.sync()
        try await phone.spaces.sync()
        try await phone.execute("UPDATE folder SET space = NULL WHERE id = 'f'; UPDATE note SET space = NULL WHERE folderId = 'f'")
        try await phone.spaces.personal.sync()
        try await laptop.spaces.sync()
        try await phone.spaces.sync()
        try await laptop.spaces.sync()
        let taken = ["folder f - Groceries", "folder p - Private", "note d - diary", "note n1 - soy milk", "note n2 - rye bread"]
        let (onLaptop, onPhone) = (try await laptop.rows(), try await phone.rows())
        #expect(onLaptop == taken)
        #expect(onPhone == taken)
        try await bob.spaces.sync()
        #expect(try await bob.rows().isEmpty, "the folder left the shared space")
    }

    @Test("a reader's edit comes back refused; a removed member's sync succeeds and keeps the rows", .timeLimit(.minutes(3)))
    func readerAndRemovedMember() async throws {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let (server, token, _, _) = try await TodosJWTTests.server(in: directory)
        defer { Task { await server.stop() } }
        let alice = try Device("alice", in: directory, server: server.url, token: token("alice"))
        let bob = try Device("bob", in: directory, server: server.url, token: token("bob"))
        try await alice.spaces.createSpace("family")
        try await alice.spaces.addMember("bob", role: .reader, to: "family")
        try await alice.execute("""
            INSERT INTO folder (id, name, space) VALUES ('f', 'Groceries', 'family');
            INSERT INTO note (id, folderId, text, space) VALUES ('n1', 'f', 'milk', 'family');
            """)
        try await alice.spaces.sync()

        try await bob.spaces.sync()
        #expect(try await bob.rows() == ["folder f family Groceries", "note n1 family milk"])
        #expect(try SyncSpaces.spaces(in: bob.database) == [SyncSpace(name: "family", role: .reader, isPersonal: false)])
        try await bob.execute("UPDATE note SET text = 'cake' WHERE id = 'n1'")
        let refused = try await bob.spaces.sync()
        #expect(refused.refused == 1)
        #expect(try await bob.rows() == ["folder f family Groceries", "note n1 family milk"], "the server's row is back")
        #expect(try await bob.spaces.pendingChanges() == 0)

        try await alice.spaces.removeMember("bob", from: "family")
        try await alice.execute("INSERT INTO note (id, folderId, text, space) VALUES ('n2', 'f', 'butter', 'family')")
        try await alice.spaces.sync()
        try await bob.spaces.sync()
        #expect(try await bob.rows() == ["folder f family Groceries", "note n1 family milk"], "bob keeps what he had and gets nothing more")
        #expect(try SyncSpaces.spaces(in: bob.database) == [SyncSpace(name: "family", role: nil, isPersonal: false)])
    }
}
