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
    @usableFromInline var upsertRecords: [ID: UInt64] = [:]
    @usableFromInline var deletionRecords: [ID: UInt64] = [:]
    @usableFromInline var sequence: UInt64 = 0

    @usableFromInline var _orderChanged = false
    /// The upserted ids that are insertions (a subset of `upsertRecords`' keys).
    @usableFromInline var insertions: Set<ID> = []
    /// Set by `EntityStore.merge(from:)` when it added entities: it records nothing, but an
    /// entity it adds back may have a deletion waiting in a writer, which must not land.
    @usableFromInline var _rehydrated = false

    /// `true` when entities were reordered (sort, move, restore) since the last drain.
    public var orderChanged: Bool { _orderChanged }

    @inlinable
    public init() {}

    /// Ids whose latest record is an upsert, in the order they were first recorded.
    public var upserted: [ID] { Self.ordered(upsertRecords) }
    /// Ids whose latest record is a deletion, in the order they were recorded.
    public var deleted: [ID] { Self.ordered(deletionRecords) }
    /// The ids whose latest record is an upsert, as a set (``upserted`` gives their order).
    /// Each read builds the set; to test one id, ``isUpserted(_:)`` is O(1).
    ///
    /// ```swift
    /// items[card.id] = card
    /// items.changes.upserts.contains(card.id)   // true
    /// ```
    ///
    /// Setting it (Swidux 1.0 style, `changes.upserts.insert(id)`) records a plain upsert
    /// of each added id, like ``recordUpsert(_:)``, and forgets the record of each removed id.
    public var upserts: Set<ID> {
        get { Set(upsertRecords.keys) }
        @available(*, deprecated, message: "Record changes with recordUpsert(_:), recordInsertion(_:) or recordUpdate(_:)")
        set {
            for id in upsertRecords.keys where !newValue.contains(id) {
                upsertRecords[id] = nil
                insertions.remove(id)
            }
            for id in newValue where upsertRecords[id] == nil { recordUpsert(id) }
        }
    }

    /// The ids whose latest record is a deletion, as a set (``deleted`` gives their order).
    /// Each read builds the set; to test one id, ``isDeleted(_:)`` is O(1).
    ///
    /// ```swift
    /// items[card.id] = nil
    /// items.changes.deletions.contains(card.id)   // true
    /// ```
    ///
    /// Setting it (Swidux 1.0 style, `changes.deletions.insert(id)`) records a deletion of
    /// each added id, like ``recordDeletion(_:)``, and forgets the record of each removed id.
    public var deletions: Set<ID> {
        get { Set(deletionRecords.keys) }
        @available(*, deprecated, message: "Record changes with recordDeletion(_:)")
        set {
            for id in deletionRecords.keys where !newValue.contains(id) { deletionRecords[id] = nil }
            for id in newValue where deletionRecords[id] == nil { recordDeletion(id) }
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
    public var inserted: [ID] { Self.ordered(upsertRecords.filter { insertions.contains($0.key) }) }

    /// `true` when nothing was recorded.
    @inlinable
    public var isEmpty: Bool { upsertRecords.isEmpty && deletionRecords.isEmpty && !orderChanged }

    /// The number of ids recorded (upserted plus deleted).
    public var count: Int { upsertRecords.count + deletionRecords.count }

    /// `true` if `id`'s latest record is an upsert.
    public func isUpserted(_ id: ID) -> Bool { upsertRecords[id] != nil }
    /// `true` if `id`'s latest record is a deletion.
    public func isDeleted(_ id: ID) -> Bool { deletionRecords[id] != nil }
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
        if deletionRecords.removeValue(forKey: id) != nil { _orderChanged = true }
        if upsertRecords[id] == nil { sequence &+= 1; upsertRecords[id] = sequence }
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
        if deletionRecords[id] != nil {
            recordInsertion(id)
        } else if upsertRecords[id] == nil {
            sequence &+= 1
            upsertRecords[id] = sequence
        }
    }

    /// Records that `id` was deleted.
    @inlinable
    public mutating func recordDeletion(_ id: ID) {
        if upsertRecords.removeValue(forKey: id) != nil { insertions.remove(id) }
        sequence &+= 1
        deletionRecords[id] = sequence
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
        upsertRecords.removeAll(keepingCapacity: true)
        deletionRecords.removeAll(keepingCapacity: true)
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
            && Set(lhs.upsertRecords.keys) == Set(rhs.upsertRecords.keys)
            && Set(lhs.deletionRecords.keys) == Set(rhs.deletionRecords.keys)
            && lhs.insertions == rhs.insertions
    }
}
