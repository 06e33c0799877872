import Foundation
import GRDB
import Swidux

/// Notices what other connections and processes commit to a ``SwiduxDatabase`` and delivers
/// it as ``ChangeFeedBatch``es: the current rows of the changed ids, read from the change
/// journal since its cursor. The rows written by the flushes of this database's writers are
/// not delivered; what the database changed as a consequence of them (cascades, `SET NULL`,
/// triggers) is.
///
/// ```swift
/// let feed = try database.changeFeed(for: AppDatabase.todos)
/// for await batch in feed.batches {
///     if let todos = batch.changes(in: AppDatabase.todos) { print(todos.upserts.count) }
/// }
/// ```
///
/// A dedicated read-only connection checks `PRAGMA data_version` after every commit of this
/// process to the file (a GRDB transaction observer wakes it), after every write of
/// another process to the file where the system reports it (inotify on Linux), and at the
/// latest every ``interval`` (a slow poll, 1 s by default: idle, the feed wakes about once
/// a second, and finds other processes' commits where no notification exists within that
/// interval). When another connection committed,
/// it reads the journal since the cursor and the changed rows in one snapshot and delivers
/// one batch for everything committed since the previous one. A reader whose cursor fell
/// behind the journal's pruned range gets a re-hydration batch (every row). When another
/// connection changes the schema (`PRAGMA schema_version`; a table rebuilt by a migration
/// loses the journal's triggers), the feed re-installs the triggers and delivers a
/// re-hydration batch; a schema it cannot read (a newer app's migrations, a followed table
/// gone, rows that no longer decode) is logged as an error and the feed stops. It also stops
/// on ``cancel()``, when the database closes, or when the owner it was started for goes away
/// (`store.follow(database)`). File databases only: in memory nothing is ever delivered.
public final class ChangeFeed: Sendable {
    /// The slow-poll interval used when none is given: 1 s (commits of this process, and
    /// on Linux of other processes, wake the feed at once).
    ///
    /// ```swift
    /// try store.follow(database, every: ChangeFeed.defaultInterval)
    /// ```
    public static let defaultInterval: Duration = .seconds(1)

    /// The batches, in commit order. Ends when the feed stops.
    ///
    /// ```swift
    /// for await batch in feed.batches { handle(batch) }
    /// ```
    public let batches: AsyncStream<ChangeFeedBatch>

    /// How often at the latest the feed checks for commits (when no notification woke it).
    ///
    /// ```swift
    /// feed.interval  // .seconds(1)
    /// ```
    public let interval: Duration

    /// How many times the feed's loop woke up (for a check of its idle cost).
    var wakeUps: Int { poller.wakeUps.withLock { $0 } }
    private let poller: Poller

    private let task: Task<Void, Never>

    init(
        database: SwiduxDatabase, tables: [FeedTable], writers: Set<ObjectIdentifier>?, cursor: Int64?, interval: Duration,
        keepRunning: @escaping @Sendable () -> Bool, onEnd: @escaping @Sendable () -> Void
    ) {
        self.interval = interval
        let (stream, continuation) = AsyncStream.makeStream(of: ChangeFeedBatch.self)
        batches = stream
        let poller = Poller(database: database, tables: tables, writers: writers, cursor: cursor)
        self.poller = poller
        task = Task.detached {
            await poller.run(interval: interval, keepRunning: keepRunning, deliver: { continuation.yield($0) })
            onEnd()
            continuation.finish()
        }
        continuation.onTermination = { [task] _ in task.cancel() }
    }

    /// Stops the feed: no batch is delivered after this returns, ``batches`` ends.
    ///
    /// ```swift
    /// feed.cancel()
    /// ```
    public func cancel() { task.cancel() }
}

/// The polling loop of a ``ChangeFeed`` (its state lives in the loop's task).
private final class Poller: @unchecked Sendable {
    let database: SwiduxDatabase
    let tables: [String: FeedTable]
    /// The writers whose own writes are not delivered (`nil`: every writer of the database).
    let writers: Set<ObjectIdentifier>?
    var cursor: Int64?
    let wakeUps = LockedValue(0)

    init(database: SwiduxDatabase, tables: [FeedTable], writers: Set<ObjectIdentifier>?, cursor: Int64?) {
        self.database = database
        self.tables = Dictionary(tables.map { ($0.name, $0) }, uniquingKeysWith: { first, _ in first })
        self.writers = writers
        self.cursor = cursor
    }

    func run(interval: Duration, keepRunning: @Sendable () -> Bool, deliver: (ChangeFeedBatch) -> Void) async {
        guard let path = database.path else { return }
        var configuration = Configuration()
        configuration.readonly = true
        configuration.busyMode = .timeout(5)
        guard let connection = try? DatabaseQueue(path: path, configuration: configuration) else {
            database.journal.logger.error("Swidux change feed: cannot open a connection to \(path)")
            return
        }
        defer { try? connection.close() }
        let commits = database.commits
        var version: Int64?
        var schema: Int64?
        var failures = 0
        while !Task.isCancelled, keepRunning(), !database.isClosed {
            wakeUps.withLock { $0 += 1 }
            // Read before the check: a commit made during it wakes the next wait at once.
            let seen = commits?.current ?? 0
            do {
                let current = try connection.inDatabase { db in try Int64.fetchOne(db, sql: "PRAGMA data_version") }
                if cursor == nil || current != version {
                    version = current
                    let currentSchema = try connection.inDatabase { db in try Int64.fetchOne(db, sql: "PRAGMA schema_version") }
                    let batches: [ChangeFeedBatch]
                    if let known = schema, currentSchema != known {
                        // Another connection changed the schema: a rebuilt table lost the
                        // journal's triggers. Stops (reported) when the schema is unreadable.
                        guard let rehydrated = try await schemaChanged(connection, path: path) else { return }
                        batches = [rehydrated]
                        // Re-installing the triggers changed the schema again.
                        schema = try connection.inDatabase { db in try Int64.fetchOne(db, sql: "PRAGMA schema_version") }
                    } else {
                        batches = try await connection.read({ db in try self.readBatches(db) })
                        schema = currentSchema
                    }
                    for batch in batches {
                        guard !Task.isCancelled, keepRunning() else { return }
                        deliver(batch)
                    }
                }
                failures = 0
            } catch {
                failures += 1
                version = nil
                if failures == 1 || failures % 100 == 0 {
                    database.journal.logger.error("Swidux change feed: reading \(path) failed (\(failures) times in a row): \(error)")
                }
            }
            if let commits {
                await commits.wait(after: seen, timeout: interval)
            } else {
                do { try await Task.sleep(for: interval) } catch { return }
            }
        }
    }

    /// After another connection changed the schema: checks that this app can still read it
    /// (its migrations, the followed tables and their rows), re-installs the journal's
    /// triggers where they are gone (dropping a table drops its triggers: the standard
    /// rebuild — create, copy, drop, rename — leaves the new table unjournaled) and
    /// re-hydrates, since commits made before the re-install were not journaled. Returns
    /// `nil` after logging why, when the schema cannot be followed (a newer app migrated
    /// the file, a followed table is gone or its rows no longer decode): the feed stops.
    func schemaChanged(_ connection: DatabaseQueue, path: String) async throws -> ChangeFeedBatch? {
        func stop(_ reason: String) -> ChangeFeedBatch? {
            database.journal.logger.error("Swidux change feed: stopped following \(path): \(reason)")
            return nil
        }
        let known = database.knownMigrations
        let problem = try await connection.read { db -> String? in
            if try db.tableExists("grdb_migrations") {
                let unknown = Set(try String.fetchAll(db, sql: "SELECT identifier FROM grdb_migrations")).subtracting(known)
                if !unknown.isEmpty {
                    return SwiduxDatabaseError(path: path, cause: .newerSchema(unknownMigrations: unknown.sorted())).description
                }
            }
            for name in self.tables.keys.sorted() where try !db.tableExists(name) {
                return "the followed table \"\(name)\" no longer exists (its schema was changed by another connection)"
            }
            return nil
        }
        if let problem { return stop(problem) }
        do {
            _ = try database.installJournal(Array(tables.values))
        } catch let error as SwiduxDatabaseError where error.cause == .readOnly {
            return stop("the schema changed and the change journal's triggers cannot be re-installed on a read-only database")
        }
        do {
            return try await connection.read { db in try self.rehydration(db, cursor: ChangeJournal.lastSequence(db) ?? 0) }
        } catch let error where !(error is DatabaseError) {
            return stop("after a schema change by another connection, the followed rows no longer decode: \(error)")
        }
    }

    /// Reads what others committed since `cursor`, in the read's snapshot: none, one or two
    /// batches — the rows whose latest change a sync engine made (``ChangeFeedBatch/origin``
    /// `"sync"`) in a batch of their own, after the others'. A row is in one of them.
    func readBatches(_ db: Database) throws -> [ChangeFeedBatch] {
        guard let last = try ChangeJournal.lastSequence(db) else {
            // No journal (yet): nothing can be replayed.
            if cursor == nil { return [try rehydration(db, cursor: 0)] }
            return []
        }
        guard let cursor else { return [try rehydration(db, cursor: last)] }
        guard last > cursor else { return [] }
        let first = try Int64.fetchOne(db, sql: "SELECT min(seq) FROM \(ChangeJournal.table)")
        if (first ?? last + 1) > cursor + 1 {
            // Entries after the cursor were pruned: replaying would miss some.
            return [try rehydration(db, cursor: last)]
        }
        var latest: [String: [DatabaseValue: (sequence: Int64, placed: Bool, sync: Bool)]] = [:]
        let rows = try Row.fetchCursor(
            db, sql: "SELECT seq, tbl, rid, placed, origin IS ? FROM \(ChangeJournal.table) WHERE seq > ? ORDER BY seq",
            arguments: [ChangeJournal.syncOrigin, cursor])
        while let row = try rows.next() {
            let table: String = row[1]
            let id: DatabaseValue = row[2]
            let sequence: Int64 = row[0]
            let placed: Bool = row[3]
            let previous = latest[table]?[id]
            // The row's latest writer tells where it came from.
            latest[table, default: [:]][id] = (sequence, placed || (previous?.placed ?? false), row[4])
        }
        let journal = database.journal
        var problems: [String] = []
        // Two groups, each delivered as a batch of its own: other writers' rows, then the
        // sync engine's (the latest writer of a row tells its group).
        let origins: [String?] = [nil, ChangeJournal.syncOrigin]
        var tables: [[String: any Sendable]] = [[:], [:]]
        for (name, ids) in latest {
            // Rows whose latest change is the follower's own write (recorded before its
            // commit) hold what it wrote: not delivered, except the rows it inserted or
            // moved, whose stored place the store learns (another writer may have inserted
            // rows before them meanwhile). Rows its flush changed through a cascade or a
            // trigger are not its own writes: delivered.
            var entries: [[JournalEntry]] = [[], []]
            for (id, change) in ids {
                let own = (journal.ownSequence(of: writers, table: name, id: id) ?? .min) >= change.sequence
                if own && !change.placed { continue }
                entries[change.sync ? 1 : 0].append(JournalEntry(id: id, sequence: change.sequence, placed: change.placed))
            }
            let count = entries[0].count + entries[1].count
            guard count > 0 else { continue }
            guard let table = self.tables[name] else {
                if try !db.tableExists(name) {
                    problems.append("journal names an unknown table \"\(name)\" (\(count) entries skipped)")
                }
                continue
            }
            for group in 0..<2 where !entries[group].isEmpty {
                tables[group][name] = try table.loadChanges(entries[group].sorted { $0.sequence < $1.sequence }, db, &problems)
            }
        }
        self.cursor = last
        var batches: [ChangeFeedBatch] = []
        for group in 0..<2 {
            // The first batch carries the problems, and is the one batch when nothing is delivered.
            let wanted = group == 0 ? !tables[0].isEmpty || !problems.isEmpty || tables[1].isEmpty : !tables[1].isEmpty
            guard wanted else { continue }
            batches.append(ChangeFeedBatch(
                cursor: last, isRehydration: false, problems: group == 0 ? problems : [], tables: tables[group], origin: origins[group]))
        }
        return batches
    }

    private func rehydration(_ db: Database, cursor: Int64) throws -> ChangeFeedBatch {
        var tables: [String: any Sendable] = [:]
        for (name, table) in self.tables { tables[name] = try table.loadAll(db) }
        self.cursor = cursor
        return ChangeFeedBatch(cursor: cursor, isRehydration: true, problems: [], tables: tables)
    }
}
