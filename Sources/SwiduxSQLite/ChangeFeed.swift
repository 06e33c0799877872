import Foundation
import GRDB

/// Notices what other connections and processes commit to a ``SwiduxDatabase`` and delivers
/// it as ``ChangeFeedBatch``es: the current rows of the changed ids, read from the change
/// journal since its cursor. The database's own flushes are not delivered.
///
/// ```swift
/// let feed = try database.changeFeed(for: AppDatabase.todos)
/// for await batch in feed.batches {
///     if let todos = batch.changes(in: AppDatabase.todos) { print(todos.upserts.count) }
/// }
/// ```
///
/// A dedicated read-only connection polls `PRAGMA data_version` every ``interval``
/// (a few microseconds of work when nothing changed); when another connection committed,
/// it reads the journal since the cursor and the changed rows in one snapshot and delivers
/// one batch for everything committed since the previous one. A reader whose cursor fell
/// behind the journal's pruned range gets a re-hydration batch (every row). The feed stops
/// on ``cancel()``, when the database closes, or when the owner it was started for goes away
/// (`store.follow(database)`). File databases only: in memory nothing is ever delivered.
public final class ChangeFeed: Sendable {
    /// The polling interval used when none is given: 50 ms.
    ///
    /// ```swift
    /// try store.follow(database, every: ChangeFeed.defaultInterval)
    /// ```
    public static let defaultInterval: Duration = .milliseconds(50)

    /// The batches, in commit order. Ends when the feed stops.
    ///
    /// ```swift
    /// for await batch in feed.batches { handle(batch) }
    /// ```
    public let batches: AsyncStream<ChangeFeedBatch>

    /// How often the feed checks for commits.
    ///
    /// ```swift
    /// feed.interval  // .milliseconds(50)
    /// ```
    public let interval: Duration

    private let task: Task<Void, Never>

    init(
        database: SwiduxDatabase, tables: [FeedTable], cursor: Int64?, interval: Duration,
        keepRunning: @escaping @Sendable () -> Bool, onEnd: @escaping @Sendable () -> Void
    ) {
        self.interval = interval
        let (stream, continuation) = AsyncStream.makeStream(of: ChangeFeedBatch.self)
        batches = stream
        let poller = Poller(database: database, tables: tables, cursor: cursor)
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
    var cursor: Int64?

    init(database: SwiduxDatabase, tables: [FeedTable], cursor: Int64?) {
        self.database = database
        self.tables = Dictionary(tables.map { ($0.name, $0) }, uniquingKeysWith: { first, _ in first })
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
        var version: Int64?
        var failures = 0
        while !Task.isCancelled, keepRunning(), !database.isClosed {
            do {
                let current = try connection.inDatabase { db in try Int64.fetchOne(db, sql: "PRAGMA data_version") }
                if cursor == nil || current != version {
                    version = current
                    if let batch = try await connection.read({ db in try self.readBatch(db) }) {
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
            do { try await Task.sleep(for: interval) } catch { return }
        }
    }

    /// Reads what others committed since `cursor`, in the read's snapshot; `nil` when nothing.
    func readBatch(_ db: Database) throws -> ChangeFeedBatch? {
        guard let last = try ChangeJournal.lastSequence(db) else {
            // No journal (yet): nothing can be replayed.
            if cursor == nil { return try rehydration(db, cursor: 0) }
            return nil
        }
        guard let cursor else { return try rehydration(db, cursor: last) }
        guard last > cursor else { return nil }
        let first = try Int64.fetchOne(db, sql: "SELECT min(seq) FROM \(ChangeJournal.table)")
        if (first ?? last + 1) > cursor + 1 {
            // Entries after the cursor were pruned: replaying would miss some.
            return try rehydration(db, cursor: last)
        }
        let own = database.journal.origin
        var latest: [String: [DatabaseValue: (sequence: Int64, placed: Bool, own: Bool)]] = [:]
        let rows = try Row.fetchCursor(db, sql: "SELECT seq, tbl, rid, placed, origin FROM \(ChangeJournal.table) WHERE seq > ? ORDER BY seq", arguments: [cursor])
        while let row = try rows.next() {
            let table: String = row[1]
            let id: DatabaseValue = row[2]
            let isOwn = (row[4] as String?) == own
            let sequence: Int64 = row[0]
            let placed: Bool = row[3]
            let previous = latest[table]?[id]
            latest[table, default: [:]][id] = (sequence, placed || (previous?.placed ?? false), isOwn)
        }
        var problems: [String] = []
        var tables: [String: any Sendable] = [:]
        for (name, ids) in latest {
            // Rows whose latest change is this database's own flush hold what it wrote: not
            // delivered, except the rows it inserted or moved, whose stored place the store
            // learns (another writer may have inserted rows before them meanwhile).
            let entries = ids.compactMap { id, change in
                change.own && !change.placed ? nil : JournalEntry(id: id, sequence: change.sequence, placed: change.placed)
            }
            guard !entries.isEmpty else { continue }
            guard let table = self.tables[name] else {
                if try !db.tableExists(name) {
                    problems.append("journal names an unknown table \"\(name)\" (\(entries.count) entries skipped)")
                }
                continue
            }
            tables[name] = try table.loadChanges(entries.sorted { $0.sequence < $1.sequence }, db, &problems)
        }
        self.cursor = last
        return ChangeFeedBatch(cursor: last, isRehydration: false, problems: problems, tables: tables)
    }

    private func rehydration(_ db: Database, cursor: Int64) throws -> ChangeFeedBatch {
        var tables: [String: any Sendable] = [:]
        for (name, table) in self.tables { tables[name] = try table.loadAll(db) }
        self.cursor = cursor
        return ChangeFeedBatch(cursor: cursor, isRehydration: true, problems: [], tables: tables)
    }
}
