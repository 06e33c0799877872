import Foundation
import GRDB
import Logging

/// A ``SwiduxDatabase``'s side of the change journal: its origin token, the tables bound to
/// state by ``SwiduxDatabase/stateWriter(for:table:)``, the journal cursor of its
/// hydrations, and — while a feed follows — the journal sequences of its own flushes.
final class JournalState: @unchecked Sendable {
    private let lock = NSLock()
    /// Written into the journal entries of this database's own flushes.
    let origin = UUID().uuidString
    private var _logger = Logger(label: "swidux.external")
    /// Where the feeds log skipped entries and read failures.
    var logger: Logger {
        get { lock.withLock { _logger } }
        set { lock.withLock { _logger = newValue } }
    }
    private var bindings: [any Sendable] = []
    private var hydrationCursor: Int64?
    private var hydratedWithoutJournal = false
    private var feeds = 0
    /// Table → id → journal sequence of this database's latest flush of that row.
    private var ownWrites: [String: [DatabaseValue: Int64]] = [:]

    // MARK: Bindings

    /// Remembers a binding, once per table and key path.
    func bind<State>(_ binding: StateTableBinding<State>) {
        lock.withLock {
            let known = bindings.contains { existing in
                guard let existing = existing as? StateTableBinding<State> else { return false }
                return existing.keyPath == binding.keyPath && existing.feedTable.name == binding.feedTable.name
            }
            if !known { bindings.append(binding) }
        }
    }

    func bindings<Binding>(of type: Binding.Type) -> [Binding] {
        lock.withLock { bindings.compactMap { $0 as? Binding } }
    }

    // MARK: Hydration

    /// A hydration read the journal at `sequence` (`nil`: there was no journal).
    func hydrated(at sequence: Int64?) {
        lock.withLock {
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
        lock.withLock { hydratedWithoutJournal ? nil : hydrationCursor }
    }

    // MARK: Own writes

    var isFollowed: Bool { lock.withLock { feeds > 0 } }

    func beginFeed() { lock.withLock { feeds += 1 } }

    func endFeed() {
        lock.withLock {
            feeds -= 1
            if feeds == 0 { ownWrites.removeAll() }
        }
    }

    /// Records the journal entries of a committed own flush.
    func recordOwn(_ entries: [(table: String, id: DatabaseValue, sequence: Int64)]) {
        guard !entries.isEmpty else { return }
        lock.withLock {
            guard feeds > 0 else { return }
            for entry in entries { ownWrites[entry.table, default: [:]][entry.id] = entry.sequence }
        }
    }

    /// The sequence of this database's latest committed flush of the row, if recorded.
    func ownSequence(table: String, id: DatabaseValue) -> Int64? {
        lock.withLock { ownWrites[table]?[id] }
    }

    /// The ids of rows of `table` this database flushed after `sequence`.
    func ownIDs(table: String, after sequence: Int64) -> [DatabaseValue] {
        lock.withLock { ownWrites[table]?.compactMap { $0.value > sequence ? $0.key : nil } ?? [] }
    }

    /// Forgets own writes no later than `cursor`: batches read after it hold later entries only.
    func forgetOwn(through cursor: Int64) {
        lock.withLock {
            for table in Array(ownWrites.keys) {
                ownWrites[table] = ownWrites[table]!.filter { $0.value > cursor }
                if ownWrites[table]!.isEmpty { ownWrites[table] = nil }
            }
        }
    }
}

extension SwiduxDatabase {
    /// Inside a flush's transaction, before its operations: the journal's last sequence,
    /// when a feed of this database follows (its own entries are then tagged).
    func journalMark(_ db: Database) throws -> Int64? {
        guard journal.isFollowed else { return nil }
        return try ChangeJournal.lastSequence(db)
    }

    /// Inside a flush's transaction, after its operations: tags the entries it wrote with
    /// this database's origin and returns them.
    func tagOwnEntries(_ db: Database, after mark: Int64) throws -> [(table: String, id: DatabaseValue, sequence: Int64)] {
        try db.execute(sql: "UPDATE \(ChangeJournal.table) SET origin = ? WHERE seq > ?", arguments: [journal.origin, mark])
        return try Row.fetchAll(db, sql: "SELECT tbl, rid, seq FROM \(ChangeJournal.table) WHERE seq > ?", arguments: [mark])
            .map { (table: $0[0], id: $0[1], sequence: $0[2]) }
    }
}
