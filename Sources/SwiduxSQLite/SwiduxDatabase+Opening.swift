import Foundation
import GRDB

/// Opening a file: checks before anything is written, the read-only connection, migrations.
extension SwiduxDatabase {
    static func prepared(_ configuration: Configuration) -> Configuration {
        var configuration = configuration
        configuration.foreignKeysEnabled = true
        configuration.prepareDatabase { db in
            if !db.configuration.readonly {
                try db.execute(sql: "PRAGMA synchronous = FULL")
                // Statement journals in memory: a statement whose triggers write other tables
                // (the change journal, sync's outbox) keeps one, and SQLite spills it to a
                // temporary file past 64 KiB, then writes every touched page there, statement
                // after statement (a first pull of 100,000 rows wrote 3.4 GB).
                try db.execute(sql: "PRAGMA temp_store = MEMORY")
                #if canImport(Darwin)
                // On Apple platforms `fsync` does not flush the drive's cache: without
                // `F_FULLFSYNC` a committed flush can be lost at a power loss.
                try db.execute(sql: "PRAGMA fullfsync = ON")
                try db.execute(sql: "PRAGMA checkpoint_fullfsync = ON")
                #endif
            }
        }
        return configuration
    }

    /// Whether a file exists at `path`; throws if `access` forbids what must happen next.
    static func checkPath(_ path: String, access: Access) throws -> Bool {
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
    /// `immutable`; with a `-wal` but no `-shm`, a copy of both is checked (see
    /// ``InspectionCopy``); otherwise read-only, using the existing `-wal` and `-shm`. An immutable
    /// read can be torn by a process that starts writing meanwhile, so a failure is
    /// believed only if the file did not change during the check.
    static func inspect(
        path: String, migrations: SwiduxMigrations, configuration: Configuration, access: Access,
        integrityCheck: IntegrityCheck = .always
    ) throws {
        var readOnly = configuration
        readOnly.readonly = true
        var attempt = 0
        while true {
            attempt += 1
            let before = FileSnapshot(path: path)
            var copy: InspectionCopy?
            if before.walSize != nil && InspectionCopy.isNeeded(for: path) {
                do {
                    copy = try InspectionCopy(of: path)
                } catch {
                    // Another process's last connection is closing: SQLite deletes the `-shm`,
                    // then the `-wal`, so a `-wal` seen without its `-shm` may be gone before it
                    // is copied. Look at the file again as it now stands.
                    if attempt < 5, !FileManager.default.fileExists(atPath: path + "-wal") { continue }
                    throw SwiduxDatabaseError(path: path, cause: .cannotOpen, underlying: error)
                }
            }
            defer { copy?.remove() }
            let location = copy?.path ?? (before.hasJournal ? path : immutableLocation(path))
            let checksPages = switch integrityCheck {
            case .always: true
            case .afterUncleanShutdown: before.hasJournal
            case .never: false
            }
            do {
                try check(location: location, path: path, configuration: readOnly) { db in
                    guard checksPages else {
                        let pending = try pendingMigrations(db, migrations: migrations, path: path)
                        if access == .readOnly, !pending.isEmpty {
                            throw SwiduxDatabaseError(path: path, cause: .needsMigration(pending: pending))
                        }
                        return
                    }
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
    static func check(
        location: String, path: String, configuration: Configuration, _ body: (Database) throws -> Void
    ) throws {
        do {
            let queue: DatabaseQueue
            do {
                queue = try DatabaseQueue(path: location, configuration: configuration)
            } catch let error as DatabaseError where location.hasPrefix("file:") && error.resultCode == .SQLITE_CANTOPEN {
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
    static func openReadOnly(path: String, configuration: Configuration) throws -> DatabaseQueue {
        var readOnly = configuration
        readOnly.readonly = true
        let snapshot = FileSnapshot(path: path)
        let directory = (path as NSString).deletingLastPathComponent
        let directoryWritable = FileManager.default.isWritableFile(atPath: directory.isEmpty ? "." : directory)
        // Without a `-wal` in a directory that cannot be written, no connection of this
        // process can hold the file, so reading its header (open, close) is safe.
        let location = snapshot.hasJournal || directoryWritable || !FileSnapshot.headerSaysWAL(path: path) ? path : immutableLocation(path)
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
    static func immutableLocation(_ path: String) -> String {
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
    static func migrate(_ writer: any DatabaseWriter, with migrations: SwiduxMigrations, path: String?) throws {
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
