import Foundation
import GRDB
import SwiduxSQLite
import Testing

@Suite("Files that cannot be opened: typed error naming the path, bytes untouched")
struct OpenErrorTests {
    static var shortTimeout: Configuration {
        var configuration = SwiduxDatabase.defaultConfiguration
        configuration.busyMode = .timeout(0.2)
        return configuration
    }

    /// Opens `path`, expecting a `SwiduxDatabaseError` with `cause`, and checks the
    /// file's bytes did not change.
    func expectRefusal(
        _ path: String, cause: SwiduxDatabaseError.Cause,
        migrations: SwiduxMigrations = Schema.migrations,
        configuration: Configuration = OpenErrorTests.shortTimeout,
        accesses: [SwiduxDatabase.Access] = [.create, .existing, .readOnly],
        sourceLocation: SourceLocation = #_sourceLocation
    ) {
        for access in accesses {
            let before = [path, path + "-wal", path + "-shm"].map(fileBytes)
            let error = #expect(throws: SwiduxDatabaseError.self, sourceLocation: sourceLocation) {
                try SwiduxDatabase(path: path, migrations: migrations, configuration: configuration, access: access)
            }
            #expect(error?.cause == cause, "\(access): \(String(describing: error))", sourceLocation: sourceLocation)
            #expect(error?.path == path, sourceLocation: sourceLocation)
            #expect(error?.description.contains(path) == true, sourceLocation: sourceLocation)
            #expect(error?.description.contains("\n") == false, "one line", sourceLocation: sourceLocation)
            // The -shm is SQLite's shared-memory index, not data: a read-only connection that
            // uses an existing one updates its read marks. The file and its -wal stay as they were.
            let after = [path, path + "-wal", path + "-shm"].map(fileBytes)
            #expect(after[0] == before[0], "\(access): the file must be left untouched", sourceLocation: sourceLocation)
            #expect(after[1] == before[1], "\(access): the -wal must be left untouched", sourceLocation: sourceLocation)
            #expect((after[2] == nil) == (before[2] == nil), "\(access): no -shm created or removed", sourceLocation: sourceLocation)
        }
    }

    /// A database holding one todo, closed (checkpointed).
    func makeDatabase(at path: String, migrations: SwiduxMigrations = Schema.migrations) async throws {
        let database = try SwiduxDatabase(path: path, migrations: migrations)
        try await database.performAtomically([{ db in
            try Schema.todos.write(WriteBatch(writes: [Todo(id: 1, title: "one", done: false, tags: [])]), in: db)
        }])
        try database.close()
    }

    @Test("Random bytes: not a database")
    func randomBytes() throws {
        let directory = try TemporaryDirectory()
        let path = directory.path("random.sqlite")
        var rng = SeededGenerator(seed: 42)
        let bytes = Data((0..<65_536).map { _ in UInt8.random(in: 0...255, using: &rng) })
        try bytes.write(to: URL(fileURLWithPath: path))
        expectRefusal(path, cause: .notADatabase)
    }

    @Test("A text file: not a database")
    func textFile() throws {
        let directory = try TemporaryDirectory()
        let path = directory.path("notes.txt")
        try Data("Shopping list\n- milk\n- eggs\n".utf8).write(to: URL(fileURLWithPath: path))
        expectRefusal(path, cause: .notADatabase)
    }

    @Test("A database whose pages are damaged: corrupt")
    func damagedPages() async throws {
        let directory = try TemporaryDirectory()
        let path = directory.path("damaged.sqlite")
        try await makeDatabase(at: path)
        var bytes = try #require(fileBytes(path))
        var rng = SeededGenerator(seed: 7)
        // Keep the 100-byte header and the schema page; garble every later page.
        let pageSize = Int(bytes[16]) << 8 | Int(bytes[17])
        for index in pageSize..<bytes.count { bytes[index] = UInt8.random(in: 0...255, using: &rng) }
        try bytes.write(to: URL(fileURLWithPath: path))
        expectRefusal(path, cause: .corrupt)
    }

    @Test("A database migrated by a newer app: newer schema, unknown migrations named")
    func newerSchema() async throws {
        let directory = try TemporaryDirectory()
        let path = directory.path("future.sqlite")
        var future = Schema.migrations
        future.register("v3-future") { db in
            try db.alter(table: "todo") { t in t.add(column: "due", .datetime) }
        }
        try await makeDatabase(at: path, migrations: future)
        expectRefusal(path, cause: .newerSchema(unknownMigrations: ["v3-future"]))
        // The newer app still opens it.
        let database = try SwiduxDatabase(path: path, migrations: future)
        #expect(try await database.hydrate(Schema.todos).count == 1)
        try database.close()
    }

    @Test("A read-only file (immutable for root, mode 0444 otherwise): read-only",
          .enabled(if: ReadOnlyFile.canMakeReadOnly, "cannot make a file read-only on this system"))
    func readOnlyFile() async throws {
        let directory = try TemporaryDirectory()
        let path = directory.path("readonly.sqlite")
        try await makeDatabase(at: path)
        try ReadOnlyFile.make(path)
        expectRefusal(path, cause: .readOnly, accesses: [.create, .existing])
        // Read-only access is what such a file is for.
        let database = try SwiduxDatabase(path: path, migrations: Schema.migrations, access: .readOnly)
        #expect(try await database.hydrate(Schema.todos).count == 1)
        try database.close()
    }

    @Test("A database another connection holds exclusively: locked")
    func lockedFile() async throws {
        let directory = try TemporaryDirectory()
        let path = directory.path("locked.sqlite")
        try await makeDatabase(at: path)
        let before = fileBytes(path)

        // Hold an exclusive lock: exclusive locking mode, then a write transaction.
        var holderConfiguration = Configuration()
        holderConfiguration.allowsUnsafeTransactions = true
        holderConfiguration.prepareDatabase { db in try db.execute(sql: "PRAGMA locking_mode = EXCLUSIVE") }
        let holder = try DatabaseQueue(path: path, configuration: holderConfiguration)
        try await holder.writeWithoutTransaction { db in
            try db.execute(sql: "BEGIN EXCLUSIVE")
            try db.execute(sql: "DELETE FROM todo")
        }

        let error = #expect(throws: SwiduxDatabaseError.self) {
            try SwiduxDatabase(path: path, migrations: Schema.migrations, configuration: Self.shortTimeout)
        }
        #expect(error?.cause == .locked, "\(String(describing: error))")
        #expect(error?.description.contains(path) == true)

        try await holder.writeWithoutTransaction { db in try db.execute(sql: "ROLLBACK") }
        try holder.close()
        #expect(fileBytes(path) == before)
        // Once released, it opens, content intact.
        let database = try SwiduxDatabase(path: path, migrations: Schema.migrations)
        #expect(try await database.hydrate(Schema.todos).count == 1)
        try database.close()
    }

    @Test("A WAL-mode database with page 3 overwritten by junk: corrupt, file untouched, no -wal/-shm created")
    func damagedWALPage() async throws {
        let directory = try TemporaryDirectory()
        let path = directory.path("wal-damaged.sqlite")
        try await makeDatabase(at: path)
        var bytes = try #require(fileBytes(path))
        #expect(bytes[18] == 2 && bytes[19] == 2, "the file is in WAL mode")
        let pageSize = Int(bytes[16]) << 8 | Int(bytes[17])
        #expect(bytes.count >= 3 * pageSize)
        var rng = SeededGenerator(seed: 3)
        for index in (2 * pageSize)..<(3 * pageSize) { bytes[index] = UInt8.random(in: 0...255, using: &rng) }
        try bytes.write(to: URL(fileURLWithPath: path))
        expectRefusal(path, cause: .corrupt)
        #expect(!FileManager.default.fileExists(atPath: path + "-wal"))
        #expect(!FileManager.default.fileExists(atPath: path + "-shm"))
    }

    @Test("The same damage with the -wal and -shm a previous run left behind: corrupt, all three files untouched")
    func damagedWALPageWithLeftoverWAL() async throws {
        let directory = try TemporaryDirectory()
        let path = directory.path("wal-leftover.sqlite")
        try await makeDatabase(at: path)
        // A GRDB pool that read through a reader connection closes its writer first and
        // leaves the -wal and -shm files behind.
        let pool = try DatabasePool(path: path)
        _ = try await pool.read { db in try Int.fetchOne(db, sql: "SELECT count(*) FROM todo") }
        try pool.close()
        #expect(FileManager.default.fileExists(atPath: path + "-wal"))
        var bytes = try #require(fileBytes(path))
        let pageSize = Int(bytes[16]) << 8 | Int(bytes[17])
        var rng = SeededGenerator(seed: 4)
        for index in (2 * pageSize)..<(3 * pageSize) { bytes[index] = UInt8.random(in: 0...255, using: &rng) }
        try bytes.write(to: URL(fileURLWithPath: path))
        expectRefusal(path, cause: .corrupt)
    }

    /// Another application's database: plain SQLite, WAL mode, its own tables.
    func makeForeignDatabase(at path: String, sql: String) throws {
        let queue = try DatabaseQueue(path: path)
        try queue.writeWithoutTransaction { db in
            _ = try String.fetchOne(db, sql: "PRAGMA journal_mode = WAL")
            try db.execute(sql: sql)
        }
        try queue.close()
    }

    @Test("Another app's file with a table of the same name: foreign, nothing written")
    func foreignSameTableName() throws {
        let directory = try TemporaryDirectory()
        let path = directory.path("other.sqlite")
        try makeForeignDatabase(at: path, sql: """
            CREATE TABLE todo (id INTEGER PRIMARY KEY, label TEXT, due TEXT);
            INSERT INTO todo (label) VALUES ('theirs');
            """)
        expectRefusal(path, cause: .foreignSchema(detail: "it has tables todo but no grdb_migrations table"))
        let queue = try DatabaseQueue(path: path, configuration: { var c = Configuration(); c.readonly = true; return c }())
        #expect(try queue.read { db in try db.tableExists("grdb_migrations") } == false)
        try queue.close()
    }

    @Test("Another app's file with unrelated tables: foreign")
    func foreignOtherTables() throws {
        let directory = try TemporaryDirectory()
        let path = directory.path("other.sqlite")
        try makeForeignDatabase(at: path, sql: "CREATE TABLE photo (id INTEGER PRIMARY KEY); CREATE INDEX photo_id ON photo(id)")
        expectRefusal(path, cause: .foreignSchema(detail: "it has tables photo but no grdb_migrations table"))
    }

    @Test("Another GRDB app's file (only migrations this app does not know): foreign, not newer")
    func foreignMigrations() throws {
        let directory = try TemporaryDirectory()
        let path = directory.path("other.sqlite")
        try makeForeignDatabase(at: path, sql: """
            CREATE TABLE grdb_migrations (identifier TEXT NOT NULL PRIMARY KEY);
            INSERT INTO grdb_migrations VALUES ('createPhotos');
            CREATE TABLE photo (id INTEGER PRIMARY KEY);
            """)
        expectRefusal(path, cause: .foreignSchema(detail: "none of its migrations (createPhotos) is one of this app's"))
    }

    @Test("A file whose -wal (no -shm beside it) holds another app's tables: foreign, and no -shm is created")
    func foreignWALWithoutSHM() throws {
        let directory = try TemporaryDirectory()
        let source = directory.path("theirs.sqlite"), path = directory.path("other.sqlite")
        // Another app's tables committed to its -wal only (no checkpoint), copied with the
        // file while it was open, as a backup or a file manager copies them: no -shm comes along.
        let queue = try DatabaseQueue(path: source)
        try queue.writeWithoutTransaction { db in
            _ = try String.fetchOne(db, sql: "PRAGMA journal_mode = WAL")
            try db.execute(sql: "PRAGMA wal_autocheckpoint = 0")
            try db.execute(sql: "CREATE TABLE photo (id INTEGER PRIMARY KEY); INSERT INTO photo VALUES (1)")
        }
        try FileManager.default.copyItem(atPath: source, toPath: path)
        try FileManager.default.copyItem(atPath: source + "-wal", toPath: path + "-wal")
        try queue.close()
        #expect(!FileManager.default.fileExists(atPath: path + "-shm"))
        let before = [path, path + "-wal"].map(fileBytes)
        // The table is in the -wal only: finding it proves the check read the -wal.
        expectRefusal(path, cause: .foreignSchema(detail: "it has tables photo but no grdb_migrations table"))
        #expect(!FileManager.default.fileExists(atPath: path + "-shm"), "the check created a -shm")
        #expect([path, path + "-wal"].map(fileBytes) == before)
    }

    @Test("An empty SQLite file, or an empty database, is adopted and migrated")
    func emptyFileIsAdopted() async throws {
        let directory = try TemporaryDirectory()
        let empty = directory.path("empty.sqlite")
        #expect(FileManager.default.createFile(atPath: empty, contents: Data()))
        let database = try SwiduxDatabase(path: empty, migrations: Schema.migrations, access: .existing)
        #expect(try await database.hydrate(Schema.todos).isEmpty)
        try database.close()

        let blank = directory.path("blank.sqlite")
        try makeForeignDatabase(at: blank, sql: "PRAGMA user_version = 0")
        let second = try SwiduxDatabase(path: blank, migrations: Schema.migrations)
        #expect(try await second.hydrate(Schema.todos).isEmpty)
        try second.close()
    }

    @Test("A database without migration history is adopted when the migrations opt in")
    func unversionedAdoptedOnOptIn() async throws {
        let directory = try TemporaryDirectory()
        let path = directory.path("legacy.sqlite")
        try makeForeignDatabase(at: path, sql: "CREATE TABLE legacy (id INTEGER PRIMARY KEY)")
        var migrations = Schema.migrations
        migrations.adoptsUnversionedDatabases = true
        let database = try SwiduxDatabase(path: path, migrations: migrations)
        #expect(try await database.hydrate(Schema.todos).isEmpty)
        #expect(try await database.writer.read { db in try db.tableExists("legacy") })
        try database.close()
    }

    @Test("A missing directory: cannot open, nothing created")
    func missingDirectory() throws {
        let directory = try TemporaryDirectory()
        let path = directory.path("missing/app.sqlite")
        let error = #expect(throws: SwiduxDatabaseError.self) {
            try SwiduxDatabase(path: path, migrations: Schema.migrations)
        }
        #expect(error?.cause == .cannotOpen, "\(String(describing: error))")
        #expect(!FileManager.default.fileExists(atPath: directory.path("missing")))
    }

    @Test("Errors read well")
    func descriptions() {
        let error = SwiduxDatabaseError(path: "/data/app.sqlite", cause: .newerSchema(unknownMigrations: ["v9"]))
        #expect(error.description == "SQLite database /data/app.sqlite: the database was migrated by a newer version of the app (unknown migrations: v9)")
        // Foundation errors are told in words, not dumped.
        let cocoa = SwiduxDatabaseError(path: "/data/app.sqlite", cause: .other,
                                        underlying: CocoaError(.fileWriteNoPermission, userInfo: [NSFilePathErrorKey: "/data"]))
        #expect(!cocoa.description.contains("NSCocoaErrorDomain") && !cocoa.description.contains("UserInfo"), "\(cocoa)")
        #expect(cocoa.description.hasPrefix("SQLite database /data/app.sqlite: the operation failed ("), "\(cocoa)")
        let ns = SwiduxDatabaseError(path: "/data/app.sqlite", cause: .other,
                                     underlying: NSError(domain: NSPOSIXErrorDomain, code: 13, userInfo: nil))
        #expect(!ns.description.contains("UserInfo") && !ns.description.contains("\n"), "\(ns)")
    }
}

/// Making a file read-only in a way that also stops root: root ignores mode bits, so
/// as root the file gets the immutable attribute (`chattr +i`, ext4/xfs/btrfs).
enum ReadOnlyFile {
    static func make(_ path: String) throws {
        try FileManager.default.setAttributes([.posixPermissions: 0o444], ofItemAtPath: path)
        if !isReadOnly(path) { setImmutable(path, true) }
    }

    static func isReadOnly(_ path: String) -> Bool { !FileManager.default.isWritableFile(atPath: path) }

    /// Probes once whether `make` works here.
    static let canMakeReadOnly: Bool = {
        let path = FileManager.default.temporaryDirectory.appending(path: "swidux-ro-probe-\(UUID().uuidString)").path
        guard FileManager.default.createFile(atPath: path, contents: Data("x".utf8)) else { return false }
        defer {
            setImmutable(path, false)
            try? FileManager.default.removeItem(atPath: path)
        }
        try? make(path)
        return isReadOnly(path)
    }()
}
