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
    /// id → sequence number of its latest record; the sequence gives a deterministic order.
    @usableFromInline var upserts: [ID: UInt64] = [:]
    @usableFromInline var deletions: [ID: UInt64] = [:]
    @usableFromInline var sequence: UInt64 = 0

    @usableFromInline var _orderChanged = false
    /// The upserted ids that are insertions (a subset of `upserts`' keys).
    @usableFromInline var insertions: Set<ID> = []
    /// Set by `EntityStore.merge(from:)` when it added entities: it records nothing, but an
    /// entity it adds back may have a deletion waiting in a writer, which must not land.
    @usableFromInline var _rehydrated = false

    /// `true` when entities were reordered (sort, move, restore) since the last drain.
    public var orderChanged: Bool { _orderChanged }

    @inlinable
    public init() {}

    /// Ids whose latest record is an upsert, in the order they were first recorded.
    public var upserted: [ID] { Self.ordered(upserts) }
    /// Ids whose latest record is a deletion, in the order they were recorded.
    public var deleted: [ID] { Self.ordered(deletions) }
    /// The ids of ``upserted`` that are insertions (absent before: new, or added again after
    /// a deletion), in the same order. The others are updates.
    ///
    /// ```swift
    /// items[new.id] = new                  // insertion
    /// items.modify(old.id) { $0.done = true } // update
    /// items.changes.inserted               // [new.id]
    /// ```
    public var inserted: [ID] { Self.ordered(upserts.filter { insertions.contains($0.key) }) }

    /// `true` when nothing was recorded.
    @inlinable
    public var isEmpty: Bool { upserts.isEmpty && deletions.isEmpty && !orderChanged }

    /// The number of ids recorded (upserted plus deleted).
    public var count: Int { upserts.count + deletions.count }

    /// `true` if `id`'s latest record is an upsert.
    public func isUpserted(_ id: ID) -> Bool { upserts[id] != nil }
    /// `true` if `id`'s latest record is a deletion.
    public func isDeleted(_ id: ID) -> Bool { deletions[id] != nil }
    /// `true` if `id`'s latest record is an insertion (see ``inserted``).
    ///
    /// ```swift
    /// items[new.id] = new
    /// items.changes.isInserted(new.id)   // true
    /// ```
    public func isInserted(_ id: ID) -> Bool { insertions.contains(id) }

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
        if deletions.removeValue(forKey: id) != nil { _orderChanged = true }
        if upserts[id] == nil { sequence &+= 1; upserts[id] = sequence }
        insertions.insert(id)
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
        if deletions[id] != nil {
            recordInsertion(id)
        } else if upserts[id] == nil {
            sequence &+= 1
            upserts[id] = sequence
        }
    }

    /// Records that `id` was deleted.
    @inlinable
    public mutating func recordDeletion(_ id: ID) {
        if upserts.removeValue(forKey: id) != nil { insertions.remove(id) }
        sequence &+= 1
        deletions[id] = sequence
    }

    /// Records that the order of the entities changed.
    @inlinable
    public mutating func recordReorder() { _orderChanged = true }

    /// Folds `newer` into this change set; `newer`'s records win.
    public mutating func merge(_ newer: ChangeSet<ID>) {
        for id in newer.deleted { recordDeletion(id) }
        for id in newer.upserted {
            if newer.isInserted(id) { recordInsertion(id) } else { recordUpdate(id) }
        }
        if newer.orderChanged { _orderChanged = true }
        if newer._rehydrated { _rehydrated = true }
    }

    /// Forgets every record.
    public mutating func removeAll() {
        upserts.removeAll(keepingCapacity: true)
        deletions.removeAll(keepingCapacity: true)
        insertions.removeAll(keepingCapacity: true)
        _orderChanged = false
        _rehydrated = false
    }

    private static func ordered(_ records: [ID: UInt64]) -> [ID] {
        switch records.count {
        case 0: return []
        case 1: return [records.first!.key]
        default: return records.sorted { $0.value < $1.value }.map { $0.key }
        }
    }

    public static func == (lhs: ChangeSet, rhs: ChangeSet) -> Bool {
        lhs.orderChanged == rhs.orderChanged
            && Set(lhs.upserts.keys) == Set(rhs.upserts.keys)
            && Set(lhs.deletions.keys) == Set(rhs.deletions.keys)
            && lhs.insertions == rhs.insertions
    }
}
