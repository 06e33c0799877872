import Foundation
import GRDB

/// Your app's embedded SQLite database: opens (or creates) the file in WAL mode with
/// foreign keys on, runs your ``SwiduxMigrations``, hydrates `EntityStore`s and
/// builds the `StateWriter`s that persist them — one flush, one transaction.
///
/// ```swift
/// let database = try SwiduxDatabase(path: "/path/to/app.sqlite", migrations: .app)
/// var state = AppState()
/// let persistence = try database.persistence(hydrating: &state, [
///     .entities(\.todos, in: AppDatabase.todos),
/// ])
/// let store = Store(initialState: state, reducer: AppReducer(), environment: .live, persistence: persistence)
/// ```
///
/// The file is never deleted, truncated or overwritten when it cannot be used: the
/// initializer checks an existing file before writing anything to it and throws a
/// ``SwiduxDatabaseError`` naming the path and the cause (not a database, corrupt,
/// another application's, newer schema, read-only, locked). ``Access`` keeps commands
/// that only read from creating or writing anything.
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
    /// timeout, `synchronous = FULL`, and on Apple platforms `fullfsync` (so that a flush that
    /// returned survives a power loss: on Darwin a plain `fsync` leaves it in the drive's
    /// cache; `F_FULLFSYNC` flushes that cache too, at a cost per commit).
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

    /// Opens the database file at `path` and runs `migrations`. With the default
    /// ``Access/create`` a missing file is created (its directory must exist), in WAL
    /// mode with foreign keys on; ``Access/existing`` and ``Access/readOnly`` never create
    /// anything.
    ///
    /// An existing file is checked before anything is written to it, through a
    /// connection that creates no file: `PRAGMA quick_check` (every page of every table
    /// and index is read: its cost grows with the file), the migration history and the
    /// schema. If it is not a database, is damaged, belongs to another application
    /// (``SwiduxDatabaseError/Cause/foreignSchema(detail:)``: it has tables but no
    /// `grdb_migrations` table, or only migrations this app does not know), was migrated
    /// by a newer app, cannot be written or is locked, the initializer throws a
    /// ``SwiduxDatabaseError`` and the file — with its `-wal` and `-shm` — is left byte for
    /// byte as it was.
    ///
    /// ```swift
    /// // Application Support does not exist on a fresh install: create it first.
    /// let directory = URL.applicationSupportDirectory
    /// try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    /// let url = directory.appending(path: "app.sqlite")
    /// let database = try SwiduxDatabase(path: url.path, migrations: .app)
    ///
    /// // A command that only lists: no file created, nothing written.
    /// let viewer = try SwiduxDatabase(path: url.path, migrations: .app, access: .readOnly)
    /// ```
    ///
    /// - Parameters:
    ///   - path: The database file.
    ///   - migrations: Your schema; pending migrations run before this returns (all in
    ///     one immediate write transaction, so that processes opening a new file at once
    ///     never run one twice).
    ///   - configuration: GRDB's configuration; foreign keys are turned on whatever it says.
    ///   - access: Whether the file may be created and written; see ``Access``.
    ///   - integrityCheck: When to run `PRAGMA quick_check` on an existing file
    ///     (``IntegrityCheck/always`` by default; see ``IntegrityCheck``).
    public convenience init(
        path: String,
        migrations: SwiduxMigrations,
        configuration: Configuration = SwiduxDatabase.defaultConfiguration,
        access: Access = .create,
        integrityCheck: IntegrityCheck = .always
    ) throws {
        let configuration = Self.prepared(configuration)
        let exists = try Self.checkPath(path, access: access)
        if exists {
            try Self.inspect(path: path, migrations: migrations, configuration: configuration, access: access,
                             integrityCheck: integrityCheck)
        }
        if access == .readOnly {
            self.init(opened: try Self.openReadOnly(path: path, configuration: configuration), path: path, access: access, migrations: migrations)
            return
        }
        var opened: DatabasePool?
        var attempt = 0
        while opened == nil {
            do {
                let pool = try DatabasePool(path: path, configuration: configuration)
                // GRDB's WAL set-up switches the writer to `synchronous = NORMAL`: restore FULL,
                // so that a flush that returned survives a power loss.
                try pool.writeWithoutTransaction { db in try db.execute(sql: "PRAGMA synchronous = FULL") }
                opened = pool
            } catch let error as DatabaseError where error.resultCode == .SQLITE_BUSY && attempt < 100 {
                // Processes switching a new file to WAL at once: SQLite refuses one of them at
                // once (a deadlock the busy timeout cannot resolve). Try again shortly.
                attempt += 1
                usleep(UInt32.random(in: 5_000...25_000))
            } catch {
                throw SwiduxDatabaseError.wrapping(error, path: path)
            }
        }
        let pool = opened!
        do {
            try Self.migrate(pool, with: migrations, path: path)
        } catch {
            try? pool.close()
            throw error
        }
        self.init(opened: pool, path: path, access: access, migrations: migrations)
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
            return SwiduxDatabase(opened: queue, path: nil, access: .create, migrations: migrations)
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
    ///
    /// A read-only connection (`configuration.readonly`) is not migrated: if migrations are
    /// pending this throws ``SwiduxDatabaseError/Cause/needsMigration(pending:)``.
    public convenience init(writer: any DatabaseWriter, migrations: SwiduxMigrations) throws {
        let path = writer.path == ":memory:" || writer.path.isEmpty ? nil : writer.path
        if writer.configuration.readonly {
            let pending: [String]
            do {
                pending = try writer.read { db in try Self.pendingMigrations(db, migrations: migrations, path: path) }
            } catch {
                throw SwiduxDatabaseError.wrapping(error, path: path)
            }
            if !pending.isEmpty { throw SwiduxDatabaseError(path: path, cause: .needsMigration(pending: pending)) }
            self.init(opened: writer, path: path, access: .readOnly, migrations: migrations)
            return
        }
        try Self.migrate(writer, with: migrations, path: path)
        self.init(opened: writer, path: path, access: .create, migrations: migrations)
    }

    /// How ``init(path:migrations:configuration:access:integrityCheck:)`` may treat the file.
    ///
    /// ```swift
    /// // A command that only reads: never creates, migrates or writes the file.
    /// let database = try SwiduxDatabase(path: path, migrations: .app, access: .readOnly)
    /// // A command that changes an existing database, but must not create one on a typo.
    /// let editable = try SwiduxDatabase(path: path, migrations: .app, access: .existing)
    /// ```
    public enum Access: Sendable, Equatable {
        /// Read-write; a missing file is created (its directory must exist). The default.
        case create
        /// Read-write; a missing file is an error (``SwiduxDatabaseError/Cause/noDatabase``),
        /// nothing is created (neither the file nor its directory).
        case existing
        /// Read only: a missing file is an error (``SwiduxDatabaseError/Cause/noDatabase``),
        /// and the database is never written — no migration (a database missing some is
        /// refused with ``SwiduxDatabaseError/Cause/needsMigration(pending:)``), no
        /// journal-mode switch, no checkpoint on ``SwiduxDatabase/close()``. Flushes fail
        /// with ``SwiduxDatabaseError/Cause/readOnly``. Works when the file or its
        /// directory cannot be written.
        ///
        /// A WAL-mode database needs its `-wal` and `-shm` companions to be read safely
        /// while another process writes it. When they exist (a writer has the database
        /// open) they are used read-only. When they do not and the directory is writable,
        /// SQLite creates them, empty, to coordinate with writers that may come (they hold
        /// no data; the database file is not written). When they do not and the directory
        /// cannot be written, no other process can be writing in WAL mode, and the file
        /// is opened `immutable`: a writer that appears later (one with write permission
        /// on the directory) is not seen, and its checkpoints may make this connection's
        /// reads fail.
        case readOnly
    }

    /// How the file was opened.
    ///
    /// ```swift
    /// if database.access == .readOnly { hideEditingCommands() }
    /// ```
    public let access: Access

    private let lifecycle = Lifecycle()
    /// The change journal's state: bound tables, own writes (see `JournalState`).
    let journal = JournalState()
    /// The file the connection opened (device and inode): a flush checks that the path still
    /// names it. `nil` in memory and read-only.
    let openedFile: FileIdentity?
    /// The identifiers of the app's migrations: a follower that finds others in the file
    /// (a newer app migrated it meanwhile) stops and says so.
    let knownMigrations: Set<String>

    /// Commits to the file, this process's and (where the platform reports them) others':
    /// what change feeds and sync push loops wait on. `nil` in memory.
    let commits: CommitSignal?

    /// `true` once ``close()`` was called.
    var isClosed: Bool { lifecycle.isClosed }

    private init(opened writer: any DatabaseWriter, path: String?, access: Access, migrations: SwiduxMigrations) {
        self.writer = writer
        knownMigrations = Set(migrations.identifiers)
        self.path = path
        self.access = access
        openedFile = access == .readOnly ? nil : path.flatMap { FileIdentity(path: $0) }
        commits = path.map { CommitSignal.forFile($0) }
        if let commits, access != .readOnly {
            // Wakes this process's followers and sync clients of the file after each commit.
            writer.add(transactionObserver: CommitObserver(signal: commits), extent: .databaseLifetime)
        }
    }

    /// Checkpoints the write-ahead log into the database file, so that the file alone
    /// holds everything, then closes the connections. Further use throws
    /// ``SwiduxDatabaseError/Cause/closed``; closing again does nothing. Optional:
    /// deinitialization closes too (without the checkpoint guarantee). A read-only
    /// database is closed without a checkpoint (it writes nothing).
    ///
    /// ```swift
    /// try database.close()
    /// ```
    public func close() throws {
        guard lifecycle.beginClose() else { return }
        if path != nil, access != .readOnly {
            // GRDB closes the writer before the readers: close idle readers first, so that
            // the writer's close is the last one and SQLite removes the -wal and -shm files.
            (writer as? DatabasePool)?.releaseMemory()
            _ = try? writer.writeWithoutTransaction { db in try db.checkpoint(.truncate) }
        }
        do {
            try writer.close()
        } catch {
            lifecycle.reopen()
            throw SwiduxDatabaseError.wrapping(error, path: path)
        }
    }

    /// Runs `body`, throwing ``SwiduxDatabaseError/Cause/closed`` once closed and wrapping its errors.
    func guarded<T>(_ body: () throws -> T) throws -> T {
        if lifecycle.isClosed { throw SwiduxDatabaseError(path: path, cause: .closed) }
        do {
            return try body()
        } catch {
            if lifecycle.isClosed { throw SwiduxDatabaseError(path: path, cause: .closed) }
            throw SwiduxDatabaseError.wrapping(error, path: path)
        }
    }

    /// The `async` form of ``guarded(_:)``.
    func guarded<T>(_ body: () async throws -> T) async throws -> T {
        if lifecycle.isClosed { throw SwiduxDatabaseError(path: path, cause: .closed) }
        do {
            return try await body()
        } catch {
            if lifecycle.isClosed { throw SwiduxDatabaseError(path: path, cause: .closed) }
            throw SwiduxDatabaseError.wrapping(error, path: path)
        }
    }

    // MARK: - TransactionalWriteBackend

    /// Runs `operations` in order in one write transaction with foreign-key checks
    /// deferred to the commit: rows referencing each other may be written in any
    /// order, and a flush that leaves a dangling reference is refused as a whole.
    /// `PersistenceMiddleware` calls this once per flush for all the writers built by
    /// ``stateWriter(for:table:)`` on this database.
    ///
    /// ```swift
    /// try await database.performAtomically([
    ///     { db in try listTable.write(WriteBatch(writes: [list]), in: db) },
    ///     { db in try itemTable.write(WriteBatch(writes: [item]), in: db) },
    /// ])
    /// ```
    ///
    /// Before it commits, the flush checks that ``path`` still names the file that was
    /// opened: a file deleted, moved away or replaced since makes it fail with
    /// ``SwiduxDatabaseError/Cause/fileReplaced`` (nothing is written; the middleware keeps
    /// the changes and retries).
    ///
    /// - Throws: ``SwiduxDatabaseError``; nothing of the flush is kept.
    public func performAtomically(_ operations: [@Sendable (Database) throws -> Void]) async throws {
        guard !operations.isEmpty else { return }
        if access == .readOnly, !lifecycle.isClosed { throw SwiduxDatabaseError(path: path, cause: .readOnly) }
        try await guarded { try await settingAsideOrphans { attempt in   // see OrphanedWrites
            let recorded = OwnWritesOfFlush()
            do {
                try await writer.write { db in
                    try db.execute(sql: "PRAGMA defer_foreign_keys = ON")
                    let mark = try self.beginJournaledFlush(db)
                    try attempt.run(operations, in: db, noting: mark != nil)
                    // A following feed skips the rows this flush wrote (see JournalState).
                    let own = try mark.map { try self.endJournaledFlush(db, after: $0, notes: attempt.notes) } ?? []
                    try self.checkOpenedFile()
                    // Recorded before the commit: no feed can read the entries as another writer's.
                    recorded.entries = own
                    self.journal.recordOwn(own)
                }
            } catch {
                // Not committed (a failed attempt too): its entries are not this writer's.
                journal.discardOwn(recorded.entries)
                throw error
            }
        } }
    }

    /// Throws ``SwiduxDatabaseError/Cause/fileReplaced`` when ``path`` no longer names the
    /// file that was opened.
    func checkOpenedFile() throws {
        guard let openedFile, let path else { return }
        let current = FileIdentity(path: path)
        guard current != openedFile else { return }
        throw SwiduxDatabaseError(path: path, cause: .fileReplaced, underlying: FileReplaced(opened: openedFile, current: current))
    }
}

/// What a flush found at its database's path instead of the file it opened.
struct FileReplaced: Error, CustomStringConvertible {
    let opened: FileIdentity
    let current: FileIdentity?
    var description: String {
        "opened as \(opened), the path now names " + (current.map { "another file (\($0))" } ?? "no file")
    }
}

/// The own writes a flush recorded, for forgetting them when its commit fails.
private final class OwnWritesOfFlush: @unchecked Sendable {
    var entries: [OwnWrite] = []
}
