/// The journal of an ``EntityStore``: which ids were inserted, updated or deleted since it
/// was last drained, and whether the order of the entities changed.
///
/// A later record of an id replaces an earlier one: an upsert after a deletion is an
/// upsert (the entity ends in the backend), a deletion after an upsert is a deletion.
///
/// Upserts are **insertions** (the id was absent: new, or added again after a deletion) or
/// **updates** (the id was present). An update after an insertion stays an insertion (the
/// backend has not seen the entity yet). Backends use the difference for the rule "delete
/// wins over a stale update": only an insertion may create a row (see ``WriteBatch/insertions``).
///
/// ```swift
/// var changes = ChangeSet<Int>()
/// changes.recordInsertion(1)
/// changes.recordUpdate(2)
/// changes.upserted   // [1, 2]
/// changes.inserted   // [1]
/// changes.recordDeletion(1)
/// changes.deleted    // [1]
/// changes.upserted   // [2]
/// ```
public struct ChangeSet<ID: Hashable & Sendable>: Sendable, Equatable {
    // Storage: a journal of entries in record order, and a way to find an id's live entry.
    // A re-recorded id whose place changes (a deletion, a re-insertion) leaves a stale entry
    // behind; the journal is compacted when the stale entries outnumber the live ones.
    // Reading `upserted`, `deleted` or `inserted` walks the journal: no sorting, no hashing.
    //
    // Two ways to find an id's live entry:
    // - By id (`bySlot == false`): `places` maps every recorded id to its live entry (one
    //   hash per record). Change sets built by hand, and every change set once it left its
    //   store, work this way.
    // - By slot (`bySlot == true`, only inside an `EntityStore`): the store records through
    //   the `slot:` methods below, which stamp the entity's slot in the store's storage with
    //   the index of its entry, so that recording an insertion, update or deletion hashes
    //   nothing. Invariant: every live insertion or update entry is stamped in the slot of
    //   its entity (the store calls `indexAll()` before anything that moves entities between
    //   slots without their stamps); live deletion entries are in `places` below
    //   `unindexedFrom` and unindexed from it on (they are hashed only when an id new to the
    //   store arrives while some are live: a possible re-insertion). A stamp is a hint: it
    //   counts only if the entry it names is live and has the entity's id, so stale stamps
    //   (a drained journal, a copy) are harmless.

    /// What an entry of the journal records.
    @usableFromInline
    enum Kind: UInt8, Sendable {
        case insertion, update, deletion
        /// Superseded by a later entry of the same id.
        case stale
    }

    /// One record of the journal.
    @usableFromInline
    struct Entry: Sendable {
        @usableFromInline var id: ID
        @usableFromInline var kind: Kind
        /// The slot of the entity in its store's storage when it was recorded (-1: unknown):
        /// a hint for the writer that drains it, valid only if that slot still holds `id`.
        @usableFromInline var slot: Int
        @inlinable init(id: ID, kind: Kind, slot: Int = -1) {
            self.id = id
            self.kind = kind
            self.slot = slot
        }
    }

    /// Recorded id → index of its live entry in `journal` (by slot: only some deletions).
    @usableFromInline var places: [ID: Int] = [:]
    /// The records in the order they were made (stale ones included until compaction).
    @usableFromInline var journal: [Entry] = []
    /// How many entries of `journal` are stale.
    @usableFromInline var staleCount = 0
    /// How many entries of `journal` are live (the number of recorded ids).
    @usableFromInline var liveCount = 0
    /// Live entries are found by their entity's slot stamp (see the storage notes above).
    @usableFromInline var bySlot = true
    /// By slot: the live deletion entries from this index on are not in `places` yet.
    @usableFromInline var unindexedFrom = 0
    /// By slot: how many deletion entries are live.
    @usableFromInline var liveDeletions = 0

    @usableFromInline var _orderChanged = false
    /// Set by `EntityStore.merge(from:)` when it added entities: it records nothing, but an
    /// entity it adds back may have a deletion waiting in a writer, which must not land.
    @usableFromInline var _rehydrated = false

    /// `true` when entities were reordered (sort, move, restore) since the last drain.
    public var orderChanged: Bool { _orderChanged }

    @inlinable
    public init() {}

    /// Ids whose latest record is an upsert, in the order they were first recorded.
    public var upserted: [ID] { ids { $0 == .insertion || $0 == .update } }
    /// Ids whose latest record is a deletion, in the order they were recorded.
    public var deleted: [ID] { ids { $0 == .deletion } }
    /// The ids whose latest record is an upsert, as a set (``upserted`` gives their order).
    /// Each read builds the set; to test one id, use ``isUpserted(_:)``.
    ///
    /// ```swift
    /// items[card.id] = card
    /// items.changes.upserts.contains(card.id)   // true
    /// ```
    ///
    /// Setting it (Swidux 1.0 style, `changes.upserts.insert(id)`) records a plain upsert
    /// of each added id, like ``recordUpsert(_:)``, and forgets the record of each removed id.
    public var upserts: Set<ID> {
        get { Set(upserted) }
        @available(*, deprecated, message: "Record changes with recordUpsert(_:), recordInsertion(_:) or recordUpdate(_:)")
        set {
            replaceUpserts(with: newValue)
        }
    }

    /// The ids whose latest record is a deletion, as a set (``deleted`` gives their order).
    /// Each read builds the set; to test one id, use ``isDeleted(_:)``.
    ///
    /// ```swift
    /// items[card.id] = nil
    /// items.changes.deletions.contains(card.id)   // true
    /// ```
    ///
    /// Setting it (Swidux 1.0 style, `changes.deletions.insert(id)`) records a deletion of
    /// each added id, like ``recordDeletion(_:)``, and forgets the record of each removed id.
    public var deletions: Set<ID> {
        get { Set(deleted) }
        @available(*, deprecated, message: "Record changes with recordDeletion(_:)")
        set {
            indexAll()
            for id in deleted where !newValue.contains(id) { forget(id) }
            for id in newValue where !isDeleted(id) { recordDeletion(id) }
        }
    }

    /// The ids of ``upserted`` that are insertions (absent before: new, or added again after
    /// a deletion), in the same order. The others are updates.
    ///
    /// ```swift
    /// items[new.id] = new                  // insertion
    /// items.modify(old.id) { $0.done = true } // update
    /// items.changes.inserted               // [new.id]
    /// ```
    public var inserted: [ID] { ids { $0 == .insertion } }

    /// `true` when nothing was recorded.
    @inlinable
    public var isEmpty: Bool { liveCount == 0 && !orderChanged }

    /// The number of ids recorded (upserted plus deleted).
    public var count: Int { liveCount }

    /// `true` if `id`'s latest record is an upsert.
    ///
    /// - Complexity: O(1) on average for a change set built by hand or returned by
    ///   ``EntityStore/drainChanges()``; O(*c*) (*c* records) for one read in place from a
    ///   store (`items.changes`), which keeps no id index so that recording hashes nothing.
    ///   To ask about many ids, ask a drained change set.
    public func isUpserted(_ id: ID) -> Bool { kind(of: id).map { $0 != .deletion } ?? false }
    /// `true` if `id`'s latest record is a deletion.
    ///
    /// - Complexity: as ``isUpserted(_:)``.
    public func isDeleted(_ id: ID) -> Bool { kind(of: id) == .deletion }
    /// `true` if `id`'s latest record is an insertion (see ``inserted``).
    ///
    /// ```swift
    /// items[new.id] = new
    /// items.changes.isInserted(new.id)   // true
    /// ```
    ///
    /// - Complexity: as ``isUpserted(_:)``.
    public func isInserted(_ id: ID) -> Bool { kind(of: id) == .insertion }

    /// Records that `id` was written without saying whether it is new: a plain upsert,
    /// recorded as an insertion (the backend creates the row if it is missing). An upsert of
    /// an id whose deletion is recorded is a re-insertion: the entity moved to the end, so
    /// the order changed too.
    ///
    /// ```swift
    /// var changes = ChangeSet<Int>()
    /// changes.recordUpsert(1)
    /// changes.isInserted(1)   // true
    /// ```
    @inlinable
    public mutating func recordUpsert(_ id: ID) {
        recordInsertion(id)
    }

    /// Records that `id` was inserted: it was absent (new, or deleted before). After a
    /// recorded deletion of `id` this is a re-insertion: the entity moved to the end, so the
    /// order changed too.
    ///
    /// ```swift
    /// var changes = ChangeSet<Int>()
    /// changes.recordDeletion(1)
    /// changes.recordInsertion(1)
    /// changes.inserted       // [1]
    /// changes.orderChanged   // true
    /// ```
    @inlinable
    public mutating func recordInsertion(_ id: ID) {
        record(id, .insertion)
    }

    /// Records that the entity `id`, which was present, changed. After an insertion of `id`
    /// it stays an insertion; after a recorded deletion it is a re-insertion.
    ///
    /// ```swift
    /// var changes = ChangeSet<Int>()
    /// changes.recordUpdate(1)
    /// changes.isInserted(1)   // false
    /// ```
    @inlinable
    public mutating func recordUpdate(_ id: ID) {
        record(id, .update)
    }

    /// Records that `id` was deleted.
    @inlinable
    public mutating func recordDeletion(_ id: ID) {
        record(id, .deletion)
    }

    /// Records that the order of the entities changed.
    @inlinable
    public mutating func recordReorder() { _orderChanged = true }

    /// Folds `newer` into this change set; `newer`'s records win.
    public mutating func merge(_ newer: ChangeSet<ID>) {
        for entry in newer.journal where entry.kind == .deletion { recordDeletion(entry.id) }
        for entry in newer.journal where entry.kind == .insertion || entry.kind == .update {
            if entry.kind == .insertion { recordInsertion(entry.id) } else { recordUpdate(entry.id) }
        }
        if newer.orderChanged { _orderChanged = true }
        if newer._rehydrated { _rehydrated = true }
    }

    /// Forgets every record.
    public mutating func removeAll() {
        places.removeAll(keepingCapacity: true)
        journal.removeAll(keepingCapacity: true)
        resetCounts()
    }

    public static func == (lhs: ChangeSet, rhs: ChangeSet) -> Bool {
        guard lhs.orderChanged == rhs.orderChanged, lhs.liveCount == rhs.liveCount else { return false }
        var rhs = rhs
        rhs.indexAll()
        for entry in lhs.journal where entry.kind != .stale && rhs.kind(of: entry.id) != entry.kind { return false }
        return true
    }
}
