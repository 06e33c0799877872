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
    public convenience init(
        path: String,
        migrations: SwiduxMigrations,
        configuration: Configuration = SwiduxDatabase.defaultConfiguration,
        access: Access = .create
    ) throws {
        let configuration = Self.prepared(configuration)
        let exists = try Self.checkPath(path, access: access)
        if exists {
            try Self.inspect(path: path, migrations: migrations, configuration: configuration, access: access)
        }
        if access == .readOnly {
            self.init(opened: try Self.openReadOnly(path: path, configuration: configuration), path: path, access: access)
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
        self.init(opened: pool, path: path, access: access)
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
            return SwiduxDatabase(opened: queue, path: nil, access: .create)
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
            self.init(opened: writer, path: path, access: .readOnly)
            return
        }
        try Self.migrate(writer, with: migrations, path: path)
        self.init(opened: writer, path: path, access: .create)
    }

    /// How ``init(path:migrations:configuration:access:)`` may treat the file.
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
    /// The change journal's state: origin token, bound tables, own writes (see `JournalState`).
    let journal = JournalState()

    /// `true` once ``close()`` was called.
    var isClosed: Bool { lifecycle.isClosed }

    private init(opened writer: any DatabaseWriter, path: String?, access: Access) {
        self.writer = writer
        self.path = path
        self.access = access
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
    /// - Throws: ``SwiduxDatabaseError``; nothing of the flush is kept.
    public func performAtomically(_ operations: [@Sendable (Database) throws -> Void]) async throws {
        guard !operations.isEmpty else { return }
        if access == .readOnly, !lifecycle.isClosed { throw SwiduxDatabaseError(path: path, cause: .readOnly) }
        try await guarded { try await settingAsideOrphans { attempt in   // see OrphanedWrites
            let own = try await writer.write { db in
                try db.execute(sql: "PRAGMA defer_foreign_keys = ON")
                let mark = try self.journalMark(db)
                try attempt.run(operations, in: db)
                // A following feed skips what this flush wrote (see ChangeFeed).
                return try mark.map { try self.tagOwnEntries(db, after: $0) } ?? []
            }
            journal.recordOwn(own)
        } }
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

    /// Whether a file exists at `path`; throws if `access` forbids what must happen next.
    private static func checkPath(_ path: String, access: Access) throws -> Bool {
        let fileManager = FileManager.default
        var isDirectory: ObjCBool = false
        let directory = (path as NSString).deletingLastPathComponent
        guard fileManager.fileExists(atPath: path, isDirectory: &isDirectory) else {
            guard access == .create else { throw SwiduxDatabaseError(path: path, cause: .noDatabase) }
            // A new file: only its directory matters.
            if !directory.isEmpty, fileManager.fileExists(atPath: directory),
               !fileManager.isWritableFile(atPath: directory) {
                throw SwiduxDatabaseError(path: path, cause: .readOnly)
            }
            return false
        }
        if isDirectory.boolValue || !fileManager.isReadableFile(atPath: path) {
            throw SwiduxDatabaseError(path: path, cause: .cannotOpen)
        }
        // access(2) sees read-only file systems and immutable files even for root.
        if access != .readOnly, !fileManager.isWritableFile(atPath: path)
            || (!directory.isEmpty && !fileManager.isWritableFile(atPath: directory)) {
            throw SwiduxDatabaseError(path: path, cause: .readOnly)
        }
        return true
    }

    /// Checks an existing file before anything is written to it: readable as a database,
    /// `quick_check`, migration history and schema. The connection creates no file: when
    /// the file has no `-wal` (no connection has it open in WAL mode) it is opened
    /// `immutable`; otherwise read-only, using the existing `-wal` and `-shm`. An immutable
    /// read can be torn by a process that starts writing meanwhile, so a failure is
    /// believed only if the file did not change during the check.
    private static func inspect(path: String, migrations: SwiduxMigrations, configuration: Configuration, access: Access) throws {
        var readOnly = configuration
        readOnly.readonly = true
        var attempt = 0
        while true {
            attempt += 1
            let before = FileSnapshot(path: path)
            let location = before.hasJournal ? path : immutableLocation(path)
            do {
                try check(location: location, path: path, configuration: readOnly) { db in
                    let integrity = try String.fetchAll(db, sql: "PRAGMA quick_check")
                    if integrity != ["ok"] {
                        throw SwiduxDatabaseError(path: path, cause: .corrupt, underlying: IntegrityCheckFailure(messages: integrity))
                    }
                    let pending = try pendingMigrations(db, migrations: migrations, path: path)
                    if access == .readOnly, !pending.isEmpty {
                        throw SwiduxDatabaseError(path: path, cause: .needsMigration(pending: pending))
                    }
                }
                return
            } catch let error as SwiduxDatabaseError {
                let stable = !before.hasJournal && FileSnapshot(path: path) == before
                if stable || before.hasJournal || attempt >= 5 { throw error }
            }
        }
    }

    /// Opens `location` with `configuration` (read-only), runs `body` in a read, closes.
    private static func check(
        location: String, path: String, configuration: Configuration, _ body: (Database) throws -> Void
    ) throws {
        do {
            let queue: DatabaseQueue
            do {
                queue = try DatabaseQueue(path: location, configuration: configuration)
            } catch let error as DatabaseError where location != path && error.resultCode == .SQLITE_CANTOPEN {
                // This SQLite does not take URI file names: plain read-only.
                queue = try DatabaseQueue(path: path, configuration: configuration)
            }
            defer { try? queue.close() }
            try queue.read { db in
                // Reads the header and the schema: not a database, corrupt, locked.
                _ = try Int.fetchOne(db, sql: "SELECT count(*) FROM sqlite_master")
                try body(db)
            }
        } catch {
            throw SwiduxDatabaseError.wrapping(error, path: path)
        }
    }

    /// The connection of a ``Access/readOnly`` database (see there for the WAL rules).
    private static func openReadOnly(path: String, configuration: Configuration) throws -> DatabaseQueue {
        var readOnly = configuration
        readOnly.readonly = true
        let snapshot = FileSnapshot(path: path)
        let directory = (path as NSString).deletingLastPathComponent
        let directoryWritable = FileManager.default.isWritableFile(atPath: directory.isEmpty ? "." : directory)
        let location = snapshot.hasJournal || directoryWritable || !snapshot.isWALMode ? path : immutableLocation(path)
        do {
            do {
                return try DatabaseQueue(path: location, configuration: readOnly)
            } catch let error as DatabaseError where location != path && error.resultCode == .SQLITE_CANTOPEN {
                return try DatabaseQueue(path: path, configuration: readOnly)
            }
        } catch {
            throw SwiduxDatabaseError.wrapping(error, path: path)
        }
    }

    /// `file:<path>?mode=ro&immutable=1`: SQLite reads the file without locking and
    /// without creating `-wal` or `-shm` files.
    private static func immutableLocation(_ path: String) -> String {
        var allowed = CharacterSet.urlPathAllowed
        allowed.remove(charactersIn: "?#%")
        return "file:" + (path.addingPercentEncoding(withAllowedCharacters: allowed) ?? path) + "?mode=ro&immutable=1"
    }

    /// The migrations `migrations` still has to run on `db`, after checking the database is
    /// this app's: a database with tables but no `grdb_migrations` table is foreign (unless
    /// ``SwiduxMigrations/adoptsUnversionedDatabases``), one whose applied migrations are
    /// all unknown is foreign, one with some unknown ones was migrated by a newer app.
    static func pendingMigrations(_ db: Database, migrations: SwiduxMigrations, path: String?) throws -> [String] {
        guard try db.tableExists("grdb_migrations") else {
            let objects = try Int.fetchOne(db, sql: "SELECT count(*) FROM sqlite_master WHERE name NOT LIKE 'sqlite\\_%' ESCAPE '\\'") ?? 0
            if objects > 0, !migrations.adoptsUnversionedDatabases {
                let tables = try String.fetchAll(db, sql: """
                    SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite\\_%' ESCAPE '\\' ORDER BY name
                    """)
                let listed = tables.prefix(5).joined(separator: ", ") + (tables.count > 5 ? ", …" : "")
                let detail = tables.isEmpty
                    ? "it has a schema but no grdb_migrations table"
                    : "it has tables \(listed) but no grdb_migrations table"
                throw SwiduxDatabaseError(path: path, cause: .foreignSchema(detail: detail))
            }
            return migrations.identifiers
        }
        let applied = try migrations.migrator.appliedIdentifiers(db)
        let known = Set(migrations.identifiers)
        let unknown = applied.subtracting(known)
        if !unknown.isEmpty {
            if applied.isDisjoint(with: known) {
                let listed = unknown.sorted().prefix(5).joined(separator: ", ") + (unknown.count > 5 ? ", …" : "")
                throw SwiduxDatabaseError(path: path, cause: .foreignSchema(
                    detail: "none of its migrations (\(listed)) is one of this app's"))
            }
            throw SwiduxDatabaseError(path: path, cause: .newerSchema(unknownMigrations: unknown.sorted()))
        }
        return migrations.identifiers.filter { !applied.contains($0) }
    }

    /// Runs the pending migrations. Migrations registered with
    /// ``SwiduxMigrations/register(_:migrate:)`` run in one immediate write transaction
    /// that first re-checks what is applied: concurrent first opens serialize on the write
    /// lock and the later ones find nothing to do. A wrapped GRDB migrator runs one
    /// transaction per migration; a run that fails while another process made progress is
    /// retried.
    private static func migrate(_ writer: any DatabaseWriter, with migrations: SwiduxMigrations, path: String?) throws {
        do {
            // Nothing pending (every open but the first): nothing is written, no write lock taken.
            var pending = try writer.read { db in try pendingMigrations(db, migrations: migrations, path: path) }
            guard !pending.isEmpty else { return }
            guard let steps = migrations.steps else {
                var attempts = 0
                while true {
                    do {
                        try migrations.migrator.migrate(writer)
                        return
                    } catch {
                        attempts += 1
                        let remaining = try writer.read { db in try pendingMigrations(db, migrations: migrations, path: path) }
                        if remaining.isEmpty { return }
                        guard remaining.count < pending.count, attempts <= migrations.identifiers.count else { throw error }
                        pending = remaining
                    }
                }
            }
            try writer.barrierWriteWithoutTransaction { db in
                let foreignKeys = try Bool.fetchOne(db, sql: "PRAGMA foreign_keys") ?? false
                // As GRDB does: foreign keys off during the migrations (it cannot change
                // inside a transaction), checked before the commit.
                if foreignKeys { try db.execute(sql: "PRAGMA foreign_keys = OFF") }
                defer { if foreignKeys { try? db.execute(sql: "PRAGMA foreign_keys = ON") } }
                try db.inTransaction(.immediate) {
                    let pending = Set(try pendingMigrations(db, migrations: migrations, path: path))
                    guard !pending.isEmpty else { return .commit }
                    try db.execute(sql: "CREATE TABLE IF NOT EXISTS grdb_migrations (identifier TEXT NOT NULL PRIMARY KEY)")
                    for step in steps where pending.contains(step.identifier) {
                        try step.migrate(db)
                        try db.execute(sql: "INSERT INTO grdb_migrations (identifier) VALUES (?)", arguments: [step.identifier])
                    }
                    if foreignKeys { try db.checkForeignKeys() }
                    return .commit
                }
            }
        } catch {
            throw SwiduxDatabaseError.wrapping(error, path: path)
        }
    }
}

/// The messages of a failed `PRAGMA quick_check`.
struct IntegrityCheckFailure: Error, CustomStringConvertible {
    let messages: [String]
    var description: String { "quick_check: " + messages.prefix(3).joined(separator: "; ") }
}
