/// The journal of an ``EntityStore``: which ids were upserted or deleted since it
/// was last drained, and whether the order of the entities changed.
///
/// A later record of an id replaces an earlier one: an upsert after a deletion is an
/// upsert (the entity ends in the backend), a deletion after an upsert is a deletion.
///
/// ```swift
/// var changes = ChangeSet<Int>()
/// changes.recordUpsert(1)
/// changes.recordDeletion(1)
/// changes.deleted   // [1]
/// changes.upserted  // []
/// ```
public struct ChangeSet<ID: Hashable & Sendable>: Sendable, Equatable {
    /// id → sequence number of its latest record; the sequence gives a deterministic order.
    @usableFromInline var upserts: [ID: UInt64] = [:]
    @usableFromInline var deletions: [ID: UInt64] = [:]
    @usableFromInline var sequence: UInt64 = 0

    @usableFromInline var _orderChanged = false

    /// `true` when entities were reordered (sort, move, restore) since the last drain.
    public var orderChanged: Bool { _orderChanged }

    @inlinable
    public init() {}

    /// Ids whose latest record is an upsert, in the order they were first recorded.
    public var upserted: [ID] { Self.ordered(upserts) }
    /// Ids whose latest record is a deletion, in the order they were recorded.
    public var deleted: [ID] { Self.ordered(deletions) }

    /// `true` when nothing was recorded.
    @inlinable
    public var isEmpty: Bool { upserts.isEmpty && deletions.isEmpty && !orderChanged }

    /// The number of ids recorded (upserted plus deleted).
    public var count: Int { upserts.count + deletions.count }

    /// `true` if `id`'s latest record is an upsert.
    public func isUpserted(_ id: ID) -> Bool { upserts[id] != nil }
    /// `true` if `id`'s latest record is a deletion.
    public func isDeleted(_ id: ID) -> Bool { deletions[id] != nil }

    /// Records that `id` was inserted or updated. An upsert of an id whose deletion is
    /// recorded is a re-insertion: the entity moved to the end, so the order changed too.
    @inlinable
    public mutating func recordUpsert(_ id: ID) {
        if deletions.removeValue(forKey: id) != nil { _orderChanged = true }
        if upserts[id] == nil { sequence &+= 1; upserts[id] = sequence }
    }

    /// Records that `id` was deleted.
    @inlinable
    public mutating func recordDeletion(_ id: ID) {
        upserts.removeValue(forKey: id)
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
            if deletions[id] != nil { _orderChanged = true }
            recordUpsert(id)
        }
        if newer.orderChanged { _orderChanged = true }
    }

    /// Forgets every record.
    public mutating func removeAll() {
        upserts.removeAll(keepingCapacity: true)
        deletions.removeAll(keepingCapacity: true)
        _orderChanged = false
    }

    private static func ordered(_ records: [ID: UInt64]) -> [ID] {
        records.sorted { $0.value < $1.value }.map(\.key)
    }

    public static func == (lhs: ChangeSet, rhs: ChangeSet) -> Bool {
        lhs.orderChanged == rhs.orderChanged
            && Set(lhs.upserts.keys) == Set(rhs.upserts.keys)
            && Set(lhs.deletions.keys) == Set(rhs.deletions.keys)
    }
}
