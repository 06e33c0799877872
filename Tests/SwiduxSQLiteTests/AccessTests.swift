import Foundation
import SwiduxTestSupport
import GRDB
import SwiduxSQLite
import Testing

/// `SwiduxDatabase.Access`: `.existing` never creates a file, `.readOnly` never creates or
/// writes anything; a closed database says so.
@Suite("Access modes, read-only use, closed databases")
struct AccessTests {
    /// A database holding todos 1 and 2, closed (checkpointed).
    static func makeDatabase(at path: String) async throws {
        let database = try SwiduxDatabase(path: path, migrations: Schema.migrations)
        try await database.performAtomically([{ db in
            try Schema.todos.write(WriteBatch(writes: [
                Todo(id: 1, title: "one", done: false, tags: []),
                Todo(id: 2, title: "two", done: true, tags: ["x"]),
            ]), in: db)
        }])
        try database.close()
    }

    static func directoryListing(_ directory: String) -> [String] {
        ((try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? []).sorted()
    }

    // MARK: - Closed (issue 16 item 17b)

    @Test("Using a database after close() reports .closed, not an SQLite misuse code")
    func useAfterClose() async throws {
        let directory = try TemporaryDirectory()
        let path = directory.path("closed.sqlite")
        let database = try SwiduxDatabase(path: path, migrations: Schema.migrations)
        try database.close()
        let flush = await #expect(throws: SwiduxDatabaseError.self) {
            try await database.performAtomically([{ db in
                try Schema.todos.write(WriteBatch(writes: [Todo(id: 1, title: "x", done: false, tags: [])]), in: db)
            }])
        }
        #expect(flush?.cause == .closed)
        #expect(flush?.description == "SQLite database \(path): the database is closed")
        let hydrate = await #expect(throws: SwiduxDatabaseError.self) { try await database.hydrate(Schema.todos) }
        #expect(hydrate?.cause == .closed)
        // Closing twice is harmless.
        try database.close()
    }

    @Test("A flush through the middleware after close() reports .closed")
    @MainActor
    func middlewareFlushAfterClose() async throws {
        let database = try SwiduxDatabase.inMemory(migrations: Schema.migrations)
        let persistence = MiddlewareIntegrationTests.middleware(database)
        var state = TestState()
        state.todos[1] = Todo(id: 1, title: "x", done: false, tags: [])
        persistence.afterReduce(state: &state)
        try database.close()
        let error = await #expect(throws: (any Error).self) { try await persistence.flush() }
        let text = "\(error.map { "\($0)" } ?? "")"
        #expect(text.contains("the database is closed"), "\(text)")
        #expect(!text.contains("out of memory"), "\(text)")
    }

    // MARK: - .existing

    @Test(".existing on a missing file: .noDatabase naming the path, nothing created")
    func existingMissing() throws {
        let directory = try TemporaryDirectory()
        let path = directory.path("missing.sqlite")
        for access in [SwiduxDatabase.Access.existing, .readOnly] {
            let error = #expect(throws: SwiduxDatabaseError.self) {
                try SwiduxDatabase(path: path, migrations: Schema.migrations, access: access)
            }
            #expect(error?.cause == .noDatabase, "\(access)")
            #expect(error?.description == "SQLite database \(path): there is no database file at this path")
            #expect(Self.directoryListing(directory.url.path).isEmpty, "\(access) created \(Self.directoryListing(directory.url.path))")
        }
        // Missing directories are not created either.
        let deep = directory.path("a/b/c/db.sqlite")
        let error = #expect(throws: SwiduxDatabaseError.self) {
            try SwiduxDatabase(path: deep, migrations: Schema.migrations, access: .existing)
        }
        #expect(error?.cause == .noDatabase)
        #expect(Self.directoryListing(directory.url.path).isEmpty)
    }

    @Test(".existing opens and migrates an existing file read-write")
    func existingOpens() async throws {
        let directory = try TemporaryDirectory()
        let path = directory.path("app.sqlite")
        try await Self.makeDatabase(at: path)
        let database = try SwiduxDatabase(path: path, migrations: Schema.migrations, access: .existing)
        #expect(try await database.hydrate(Schema.todos).ids == [1, 2])
        try await database.performAtomically([{ db in try Schema.todos.write(WriteBatch(deletions: [1]), in: db) }])
        try database.close()
        let reopened = try SwiduxDatabase(path: path, migrations: Schema.migrations, access: .readOnly)
        #expect(try await reopened.hydrate(Schema.todos).ids == [2])
        try reopened.close()
    }

    // MARK: - .readOnly

    @Test(".readOnly reads a healthy file and leaves its bytes unchanged; flushes fail with .readOnly")
    func readOnlyDoesNotWrite() async throws {
        let directory = try TemporaryDirectory()
        let path = directory.path("app.sqlite")
        try await Self.makeDatabase(at: path)
        let before = try #require(fileBytes(path))
        for _ in 0..<3 {
            let database = try SwiduxDatabase(path: path, migrations: Schema.migrations, access: .readOnly)
            #expect(try await database.hydrate(Schema.todos).ids == [1, 2])
            let error = await #expect(throws: SwiduxDatabaseError.self) {
                try await database.performAtomically([{ db in try Schema.todos.write(WriteBatch(deletions: [1]), in: db) }])
            }
            #expect(error?.cause == .readOnly)
            #expect(error?.description.hasPrefix("SQLite database \(path): ") == true)
            try database.close()
        }
        #expect(fileBytes(path) == before, "a read-only open changed the file")
        #expect(!FileManager.default.fileExists(atPath: path + "-wal") || fileBytes(path + "-wal")?.isEmpty == true)
    }

    @Test(".readOnly on a database that misses migrations: .needsMigration, nothing written")
    func readOnlyOutdated() async throws {
        let directory = try TemporaryDirectory()
        let path = directory.path("old.sqlite")
        let v1Only = SwiduxMigrations { m in
            m.register("v1") { db in
                try db.createEntityTable(for: Todo.self, named: "todo")
                try db.createEntityTable(Schema.notes)
            }
        }
        let old = try SwiduxDatabase(path: path, migrations: v1Only)
        try old.close()
        let before = fileBytes(path)
        let error = #expect(throws: SwiduxDatabaseError.self) {
            try SwiduxDatabase(path: path, migrations: Schema.migrations, access: .readOnly)
        }
        #expect(error?.cause == .needsMigration(pending: ["v2-folders"]))
        #expect(fileBytes(path) == before)
    }

    @Test("Wrapping a read-only GRDB connection: not migrated, pending migrations refused")
    func readOnlyWriterIsNotMigrated() async throws {
        let directory = try TemporaryDirectory()
        let path = directory.path("app.sqlite")
        try SwiduxDatabase(path: path, migrations: SwiduxMigrations { m in
            m.register("v1") { db in
                try db.createEntityTable(for: Todo.self, named: "todo")
                try db.createEntityTable(Schema.notes)
            }
        }).close()
        var configuration = Configuration()
        configuration.readonly = true
        let queue = try DatabaseQueue(path: path, configuration: configuration)
        let error = #expect(throws: SwiduxDatabaseError.self) {
            try SwiduxDatabase(writer: queue, migrations: Schema.migrations)
        }
        #expect(error?.cause == .needsMigration(pending: ["v2-folders"]))
        try queue.close()
    }

    @Test(".readOnly of a file 0444 in a 0555 directory, read by an unprivileged child process (nobody)",
          .enabled(if: UnprivilegedChild.isAvailable, "needs root and setpriv to run a child as nobody"))
    func readOnlyAsNobody() async throws {
        let directory = try TemporaryDirectory()
        let path = directory.path("app.sqlite")
        // The child knows the crash writer's schema: tables "a" and "b".
        let database = try SwiduxDatabase(path: path, migrations: CrashAtomicityTests.migrations)
        try await database.performAtomically([{ db in
            try CrashAtomicityTests.tableA.write(WriteBatch(writes: [1, 2].map {
                CrashAtomicityTests.CrashRow(id: $0, flush: 1, payload: "p")
            }), in: db)
        }])
        try database.close()
        let before = try #require(fileBytes(path))
        try FileManager.default.setAttributes([.posixPermissions: 0o444], ofItemAtPath: path)
        try FileManager.default.setAttributes([.posixPermissions: 0o555], ofItemAtPath: directory.url.path)
        defer { try? FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: directory.url.path) }

        let output = directory.url.deletingLastPathComponent().appending(path: "swidux-ro-\(UUID().uuidString).txt").path
        defer { try? FileManager.default.removeItem(atPath: output) }
        let status = try await ChildProcess.run(
            UnprivilegedChild.prefix + [try CrashAtomicityTests.crashWriterPath(), "read", path],
            output: output)
        let text = String(decoding: fileBytes(output) ?? Data(), as: UTF8.self)
        #expect(status == 0, "\(text)")
        #expect(text.contains("a: 1 2"), "\(text)")
        #expect(fileBytes(path) == before)
        #expect(Self.directoryListing(directory.url.path) == ["app.sqlite"])

        // The same child asked to write gets a clear read-only error, one line naming the file.
        let writeStatus = try await ChildProcess.run(
            UnprivilegedChild.prefix + [try CrashAtomicityTests.crashWriterPath(), "read-then-write", path],
            output: output)
        let writeText = String(decoding: fileBytes(output) ?? Data(), as: UTF8.self)
        #expect(writeStatus == 3, "\(writeText)")
        #expect(writeText.contains("SQLite database \(path): the database is read-only"), "\(writeText)")
        #expect(fileBytes(path) == before)
    }

    @Test(".readOnly while another connection writes sees committed flushes and never writes itself")
    func readOnlyAlongsideWriter() async throws {
        let directory = try TemporaryDirectory()
        let path = directory.path("app.sqlite")
        try await Self.makeDatabase(at: path)
        let writer = try SwiduxDatabase(path: path, migrations: Schema.migrations)
        let reader = try SwiduxDatabase(path: path, migrations: Schema.migrations, access: .readOnly)
        #expect(try await reader.hydrate(Schema.todos).ids == [1, 2])
        try await writer.performAtomically([{ db in
            try Schema.todos.write(WriteBatch(writes: [Todo(id: 3, title: "three", done: false, tags: [])]), in: db)
        }])
        #expect(try await reader.hydrate(Schema.todos).ids == [1, 2, 3])
        try reader.close()
        try await writer.performAtomically([{ db in try Schema.todos.write(WriteBatch(deletions: [1]), in: db) }])
        try writer.close()
        let check = try SwiduxDatabase(path: path, migrations: Schema.migrations, access: .readOnly)
        #expect(try await check.hydrate(Schema.todos).ids == [2, 3])
        try check.close()
    }

    @Test("The writer connection keeps synchronous = FULL in WAL mode")
    func synchronousFull() async throws {
        let directory = try TemporaryDirectory()
        let database = try SwiduxDatabase(path: directory.path("app.sqlite"), migrations: Schema.migrations)
        let synchronous = try await database.writer.write { db in try Int.fetchOne(db, sql: "PRAGMA synchronous") }
        #expect(synchronous == 2)
        try database.close()
    }
}

/// Running a child process as `nobody` (root only, with util-linux's `setpriv`).
enum UnprivilegedChild {
    static let setpriv = "/usr/bin/setpriv"
    static var prefix: [String] { [setpriv, "--reuid=65534", "--regid=65534", "--clear-groups"] }
    static let isAvailable: Bool = getuid() == 0 && FileManager.default.isExecutableFile(atPath: setpriv)
}
