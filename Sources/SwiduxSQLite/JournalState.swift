import Foundation
import GRDB
import Logging
import Swidux

/// A ``SwiduxDatabase``'s side of the change journal: the tables bound to state by
/// ``SwiduxDatabase/stateWriter(for:table:)`` (one binding per writer), the journal cursor
/// of its hydrations, and — while a feed follows — the journal sequences of the rows each
/// writer's flushes wrote themselves.
///
/// Own writes are recorded per writer (``JournalWriterToken``), so that two stores on one
/// database are two writers, and per row: only the rows a flush wrote are its own; rows the
/// database changed as a consequence (a cascade, `SET NULL`, a trigger) are not, and reach
/// the stores that follow.
final class JournalState: @unchecked Sendable {
    /// Guards the fields below.
    private let lock = LockedValue(())
    private var _logger = Logger(label: "swidux.external")
    /// Where the feeds log skipped entries and read failures.
    var logger: Logger {
        get { lock.withLock { _ in _logger } }
        set { lock.withLock { _ in _logger = newValue } }
    }
    private var bindings: [any Sendable] = []
    private var hydrationCursor: Int64?
    private var hydratedWithoutJournal = false
    private var feeds = 0
    /// Writer → table → id → journal sequence of that writer's latest own write of the row.
    private var ownWrites: [ObjectIdentifier: [String: [DatabaseValue: Int64]]] = [:]

    // MARK: Bindings

    /// Remembers the binding of one writer.
    func bind<State>(_ binding: StateTableBinding<State>) {
        lock.withLock { _ in bindings.append(binding) }
    }

    func bindings<Binding>(of type: Binding.Type) -> [Binding] {
        lock.withLock { _ in bindings.compactMap { $0 as? Binding } }
    }

    // MARK: Hydration

    /// A hydration read the journal at `sequence` (`nil`: there was no journal).
    func hydrated(at sequence: Int64?) {
        lock.withLock { _ in
            if let sequence {
                hydrationCursor = min(hydrationCursor ?? sequence, sequence)
            } else {
                hydratedWithoutJournal = true
            }
        }
    }

    /// Where a feed replays from: the earliest hydration's sequence, or `nil` (re-hydrate)
    /// when a hydration read no journal or none happened.
    var replayCursor: Int64? {
        lock.withLock { _ in hydratedWithoutJournal ? nil : hydrationCursor }
    }

    // MARK: Own writes

    var isFollowed: Bool { lock.withLock { _ in feeds > 0 } }

    func beginFeed() { lock.withLock { _ in feeds += 1 } }

    func endFeed() {
        lock.withLock { _ in
            feeds -= 1
            if feeds == 0 { ownWrites.removeAll() }
        }
    }

    /// Records own writes (before the commit, so that no feed reads them as foreign).
    func recordOwn(_ entries: [OwnWrite]) {
        guard !entries.isEmpty else { return }
        lock.withLock { _ in
            guard feeds > 0 else { return }
            for entry in entries { ownWrites[entry.writer, default: [:]][entry.table, default: [:]][entry.id] = entry.sequence }
        }
    }

    /// Forgets own writes of a flush that did not commit (their sequences may be reused).
    func discardOwn(_ entries: [OwnWrite]) {
        guard !entries.isEmpty else { return }
        lock.withLock { _ in
            for entry in entries where ownWrites[entry.writer]?[entry.table]?[entry.id] == entry.sequence {
                ownWrites[entry.writer]![entry.table]![entry.id] = nil
            }
        }
    }

    /// The sequence of the latest own write of the row by one of `writers` (`nil`: any
    /// writer of this database), if recorded.
    func ownSequence(of writers: Set<ObjectIdentifier>?, table: String, id: DatabaseValue) -> Int64? {
        lock.withLock { _ in
            var latest: Int64?
            for (writer, tables) in ownWrites where writers?.contains(writer) ?? true {
                if let sequence = tables[table]?[id], sequence > (latest ?? .min) { latest = sequence }
            }
            return latest
        }
    }

    /// The ids of rows of `table` that one of `writers` wrote after `sequence`.
    func ownIDs(of writers: Set<ObjectIdentifier>?, table: String, after sequence: Int64) -> [DatabaseValue] {
        lock.withLock { _ in
            var ids: [DatabaseValue] = []
            for (writer, tables) in ownWrites where writers?.contains(writer) ?? true {
                ids += tables[table]?.compactMap { $0.value > sequence ? $0.key : nil } ?? []
            }
            return ids
        }
    }

    /// Forgets own writes of `writers` no later than `cursor`: batches read after it hold
    /// later entries only.
    func forgetOwn(of writers: Set<ObjectIdentifier>, through cursor: Int64) {
        lock.withLock { _ in
            for writer in writers {
                guard var tables = ownWrites[writer] else { continue }
                for table in Array(tables.keys) {
                    tables[table] = tables[table]!.filter { $0.value > cursor }
                    if tables[table]!.isEmpty { tables[table] = nil }
                }
                ownWrites[writer] = tables.isEmpty ? nil : tables
            }
        }
    }
}

/// Identifies one writer (one `StateWriter` built by ``SwiduxDatabase/stateWriter(for:table:)``)
/// in the journal's record of own writes: every store is its own writer.
@usableFromInline
final class JournalWriterToken: Sendable {
    @usableFromInline init() {}
}

/// One row of an own flush: written by `writer`, journaled at `sequence`.
struct OwnWrite: Sendable {
    let writer: ObjectIdentifier
    let table: String
    let id: DatabaseValue
    let sequence: Int64
}

/// The rows one writer wrote in a flush: those it upserted (with a check of which of them
/// no longer hold what it wrote) and those it deleted. Rows it only reordered are not
/// noted: their values are not its own.
struct FlushNote {
    let writer: ObjectIdentifier
    let table: String
    let idColumn: String
    let written: [DatabaseValue]
    let deleted: [DatabaseValue]
    /// Of the given written ids, those whose stored row is missing or differs from what
    /// the writer wrote (the database changed it afterwards, in the same flush).
    let changedSince: (_ ids: [DatabaseValue], _ db: Database) throws -> Set<DatabaseValue>
}

extension FlushNote {
    /// The note of what `batch` did to `table`, written by the writer of `token`.
    init<Entity>(_ batch: WriteBatch<Entity>, table: EntityTable<Entity>, by token: JournalWriterToken) {
        self.init(
            writer: ObjectIdentifier(token), table: table.name, idColumn: table.idColumn,
            // Not the rows the batch only reorders: the writer did not write their values
            // (another writer's value there reaches the store).
            written: batch.writes.map(\.id.databaseValue),
            deleted: batch.deletions.map(\.databaseValue),
            changedSince: { ids, db in
                let written = Dictionary(batch.writes.map { ($0.id.databaseValue, $0) }, uniquingKeysWith: { _, last in last })
                let select = try db.cachedStatement(
                    sql: "SELECT * FROM \(table.name.sqlIdentifier) WHERE \(table.idColumn.sqlIdentifier) = ?")
                var changed = Set<DatabaseValue>()
                for id in ids {
                    guard let row = try Row.fetchOne(select, arguments: [id]) else { changed.insert(id); continue }
                    guard let entity = written[id] else { continue }
                    if (try? table.decodeRow(row)) != entity { changed.insert(id) }
                }
                return changed
            })
    }
}

extension SwiduxDatabase {
    /// Inside a flush's transaction, before its operations: the journal's last sequence,
    /// when a feed of this database follows (the writers then note what they write).
    func beginJournaledFlush(_ db: Database) throws -> Int64? {
        guard journal.isFollowed, let mark = try ChangeJournal.lastSequence(db) else { return nil }
        return mark
    }

    /// Inside a flush's transaction, after its operations: which journal entries since
    /// `mark` are the flush's own — a row a writer noted, journaled once, or whose stored
    /// state is still what the writer wrote. Rows changed by cascades, `SET NULL` or
    /// triggers are not own (the stores that follow learn them).
    func endJournaledFlush(_ db: Database, after mark: Int64, notes: [FlushNote]) throws -> [OwnWrite] {
        guard !notes.isEmpty else { return [] }
        struct Rows { var count = 0; var latest: Int64 = 0 }
        var journaled: [String: [DatabaseValue: Rows]] = [:]
        let rows = try Row.fetchCursor(db, sql: "SELECT tbl, rid, seq FROM \(ChangeJournal.table) WHERE seq > ?", arguments: [mark])
        while let row = try rows.next() {
            let table: String = row[0]
            let sequence: Int64 = row[2]
            journaled[table, default: [:]][row[1], default: Rows()].count += 1
            journaled[table]![row[1]]!.latest = max(journaled[table]![row[1]]!.latest, sequence)
        }
        var own: [OwnWrite] = []
        for note in notes {
            guard let entries = journaled[note.table] else { continue }
            var checked: [DatabaseValue] = []
            for id in note.written {
                guard let entry = entries[id] else { continue }
                if entry.count == 1 {
                    own.append(OwnWrite(writer: note.writer, table: note.table, id: id, sequence: entry.latest))
                } else {
                    checked.append(id)
                }
            }
            if !checked.isEmpty {
                let changed = try note.changedSince(checked, db)
                for id in Set(checked) where !changed.contains(id) {
                    own.append(OwnWrite(writer: note.writer, table: note.table, id: id, sequence: entries[id]!.latest))
                }
            }
            for id in note.deleted {
                guard let entry = entries[id] else { continue }
                // Deleted by the writer: own unless something put the row back in the flush.
                if try entry.count == 1 || note.changedSince([id], db).contains(id) {
                    own.append(OwnWrite(writer: note.writer, table: note.table, id: id, sequence: entry.latest))
                }
            }
        }
        return own
    }
}
