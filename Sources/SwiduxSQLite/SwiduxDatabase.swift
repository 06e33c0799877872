import Foundation
import GRDB

/// Your app's embedded SQLite database: opens (or creates) the file in WAL mode with
/// foreign keys on, runs your ``SwiduxMigrations``, hydrates ``EntityStore``s and
/// builds the ``StateWriter``s that persist them — one flush, one transaction.
///
/// ```swift
/// let database = try SwiduxDatabase(path: "/path/to/app.sqlite", migrations: .app)
/// var state = AppState()
/// state.todos = try await database.hydrate(AppDatabase.todos)
///
/// let persistence = PersistenceMiddleware<AppState>(writers: [
///     database.stateWriter(for: \.todos, table: AppDatabase.todos),
/// ])
/// ```
///
/// The file is never deleted, truncated or overwritten when it cannot be used: the
/// initializer throws a ``SwiduxDatabaseError`` naming the path and the cause (not a
/// database, corrupt, newer schema, read-only, locked).
///
/// ``writer`` is the GRDB escape hatch: any GRDB request or observation works on it.
public final class SwiduxDatabase: TransactionalWriteBackend, Sendable {
    /// Operations of one flush receive GRDB's database connection, inside the transaction.
    public typealias Transaction = Database

    /// The GRDB connection (a `DatabasePool` for a file, a `DatabaseQueue` in memory).
    ///
    /// ```swift
    /// let count = try await database.writer.read { db in try Int.fetchOne(db, sql: "SELECT count(*) FROM todo") }
    /// ```
    public let writer: any DatabaseWriter

    /// The database file, or `nil` in memory.
    ///
    /// ```swift
    /// print(database.path ?? "in memory")
    /// ```
    public let path: String?

    /// The configuration used when none is given: foreign keys on, a 5 second busy
    /// timeout, `synchronous = FULL` (a flush that returned survives a power loss).
    ///
    /// ```swift
    /// var configuration = SwiduxDatabase.defaultConfiguration
    /// configuration.busyMode = .timeout(0.5)
    /// let database = try SwiduxDatabase(path: path, migrations: .app, configuration: configuration)
    /// ```
    public static var defaultConfiguration: Configuration {
        var configuration = Configuration()
        configuration.busyMode = .timeout(5)
        return configuration
    }

    /// Opens the database file at `path`, creating it (and nothing else: its directory
    /// must exist) if needed, in WAL mode with foreign keys on, and runs `migrations`.
    ///
    /// An existing file is first inspected through a read-only connection: if it is
    /// not a database, is corrupt, was migrated by a newer app, cannot be written or
    /// is locked, the initializer throws a ``SwiduxDatabaseError`` and the file is
    /// left byte for byte as it was.
    ///
    /// ```swift
    /// let url = URL.applicationSupportDirectory.appending(path: "app.sqlite")
    /// let database = try SwiduxDatabase(path: url.path, migrations: .app)
    /// ```
    ///
    /// - Parameters:
    ///   - path: The database file.
    ///   - migrations: Your schema; pending migrations run before this returns.
    ///   - configuration: GRDB's configuration; foreign keys are turned on whatever it says.
    public convenience init(
        path: String,
        migrations: SwiduxMigrations,
        configuration: Configuration = SwiduxDatabase.defaultConfiguration,
        access: Access = .create
    ) throws {
        // TODO(sqlite): honour `access` (.existing / .readOnly).
        let configuration = Self.prepared(configuration)
        try Self.inspect(path: path, migrations: migrations, configuration: configuration)
        let pool: DatabasePool
        do {
            pool = try DatabasePool(path: path, configuration: configuration)
        } catch {
            throw SwiduxDatabaseError.wrapping(error, path: path)
        }
        do {
            try Self.migrate(pool, with: migrations, path: path)
        } catch {
            try? pool.close()
            throw error
        }
        self.init(opened: pool, path: path)
    }

    /// A fresh database in memory, migrated: for tests and previews.
    ///
    /// ```swift
    /// let database = try SwiduxDatabase.inMemory(migrations: .app)
    /// ```
    public static func inMemory(
        migrations: SwiduxMigrations,
        configuration: Configuration = SwiduxDatabase.defaultConfiguration
    ) throws -> SwiduxDatabase {
        do {
            let queue = try DatabaseQueue(configuration: prepared(configuration))
            try migrate(queue, with: migrations, path: nil)
            return SwiduxDatabase(opened: queue, path: nil)
        } catch {
            throw SwiduxDatabaseError.wrapping(error, path: nil)
        }
    }

    /// Wraps a GRDB connection you opened yourself, and runs `migrations` on it. Turn
    /// foreign keys on in its configuration if your tables reference each other.
    ///
    /// ```swift
    /// let pool = try DatabasePool(path: path)
    /// let database = try SwiduxDatabase(writer: pool, migrations: .app)
    /// ```
    public convenience init(writer: any DatabaseWriter, migrations: SwiduxMigrations) throws {
        let path = writer.path == ":memory:" || writer.path.isEmpty ? nil : writer.path
        try Self.migrate(writer, with: migrations, path: path)
        self.init(opened: writer, path: path)
    }

    /// How ``init(path:migrations:configuration:access:)`` may treat the file.
    ///
    /// ```swift
    /// // A command that only reads: never creates, migrates or writes the file.
    /// let database = try SwiduxDatabase(path: path, migrations: .app, access: .readOnly)
    /// ```
    public enum Access: Sendable, Equatable {
        /// Read-write; a missing file is created (its directory must exist). The default.
        case create
        /// Read-write; a missing file is an error (``SwiduxDatabaseError/Cause/noDatabase``), nothing is created.
        case existing
        /// Read only: a missing file is an error, and nothing is ever written (no
        /// migration, no journal-mode switch); flushes fail with ``SwiduxDatabaseError/Cause/readOnly``.
        case readOnly
    }

    private init(opened writer: any DatabaseWriter, path: String?) {
        self.writer = writer
        self.path = path
    }

    /// Checkpoints the write-ahead log into the database file, so that the file alone
    /// holds everything, then closes the connections. Further use throws. Optional:
    /// deinitialization closes too (without the checkpoint guarantee).
    ///
    /// ```swift
    /// try database.close()
    /// ```
    public func close() throws {
        if path != nil {
            _ = try? writer.writeWithoutTransaction { db in try db.checkpoint(.truncate) }
        }
        try writer.close()
    }

    // MARK: - TransactionalWriteBackend

    /// Runs `operations` in order in one write transaction with foreign-key checks
    /// deferred to the commit: rows referencing each other may be written in any
    /// order, and a flush that leaves a dangling reference is refused as a whole.
    /// ``PersistenceMiddleware`` calls this once per flush for all the writers built by
    /// ``stateWriter(for:table:)`` on this database.
    ///
    /// ```swift
    /// try await database.performAtomically([
    ///     { db in try listTable.write(WriteBatch(writes: [list]), in: db) },
    ///     { db in try itemTable.write(WriteBatch(writes: [item]), in: db) },
    /// ])
    /// ```
    ///
    /// - Throws: ``SwiduxDatabaseError``; nothing of the flush is kept.
    public func performAtomically(_ operations: [@Sendable (Database) throws -> Void]) async throws {
        guard !operations.isEmpty else { return }
        do {
            try await writer.write { db in
                try db.execute(sql: "PRAGMA defer_foreign_keys = ON")
                for operation in operations { try operation(db) }
            }
        } catch {
            throw SwiduxDatabaseError.wrapping(error, path: path)
        }
    }

    // MARK: - Opening

    private static func prepared(_ configuration: Configuration) -> Configuration {
        var configuration = configuration
        configuration.foreignKeysEnabled = true
        configuration.prepareDatabase { db in
            if !db.configuration.readonly {
                try db.execute(sql: "PRAGMA synchronous = FULL")
            }
        }
        return configuration
    }

    /// Checks an existing file through a read-only connection, so that nothing is
    /// written to a file that turns out to be unusable.
    private static func inspect(path: String, migrations: SwiduxMigrations, configuration: Configuration) throws {
        let fileManager = FileManager.default
        var isDirectory: ObjCBool = false
        let directory = (path as NSString).deletingLastPathComponent
        guard fileManager.fileExists(atPath: path, isDirectory: &isDirectory) else {
            // A new file: only its directory matters.
            if !directory.isEmpty, fileManager.fileExists(atPath: directory),
               !fileManager.isWritableFile(atPath: directory) {
                throw SwiduxDatabaseError(path: path, cause: .readOnly)
            }
            return
        }
        if isDirectory.boolValue || !fileManager.isReadableFile(atPath: path) {
            throw SwiduxDatabaseError(path: path, cause: .cannotOpen)
        }
        // access(2) sees read-only file systems and immutable files even for root.
        if !fileManager.isWritableFile(atPath: path)
            || (!directory.isEmpty && !fileManager.isWritableFile(atPath: directory)) {
            throw SwiduxDatabaseError(path: path, cause: .readOnly)
        }
        var readOnly = configuration
        readOnly.readonly = true
        do {
            let queue = try DatabaseQueue(path: path, configuration: readOnly)
            defer { try? queue.close() }
            try queue.read { db in
                // Reads the header and the schema: not a database, corrupt, locked.
                _ = try Int.fetchOne(db, sql: "SELECT count(*) FROM sqlite_master")
                try checkNotSuperseded(db, migrations: migrations, path: path)
                if try String.fetchOne(db, sql: "PRAGMA journal_mode")?.lowercased() != "wal" {
                    // Switching to WAL writes the header: check the file is sound first.
                    let result = try String.fetchAll(db, sql: "PRAGMA quick_check")
                    if result != ["ok"] {
                        throw SwiduxDatabaseError(path: path, cause: .corrupt,
                                                  underlying: IntegrityCheckFailure(messages: result))
                    }
                }
            }
        } catch {
            throw SwiduxDatabaseError.wrapping(error, path: path)
        }
    }

    private static func checkNotSuperseded(_ db: Database, migrations: SwiduxMigrations, path: String?) throws {
        let unknown = try migrations.migrator.appliedIdentifiers(db).subtracting(migrations.identifiers)
        if !unknown.isEmpty {
            throw SwiduxDatabaseError(path: path, cause: .newerSchema(unknownMigrations: unknown.sorted()))
        }
    }

    private static func migrate(_ writer: any DatabaseWriter, with migrations: SwiduxMigrations, path: String?) throws {
        do {
            try writer.read { db in try checkNotSuperseded(db, migrations: migrations, path: path) }
            try migrations.migrator.migrate(writer)
        } catch {
            throw SwiduxDatabaseError.wrapping(error, path: path)
        }
    }
}

/// The messages of a failed `PRAGMA quick_check`.
struct IntegrityCheckFailure: Error, CustomStringConvertible {
    let messages: [String]
    var description: String { "integrity check: " + messages.prefix(3).joined(separator: "; ") }
}
