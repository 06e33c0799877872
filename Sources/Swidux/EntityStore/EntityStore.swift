import Foundation

/// An ordered, keyed collection of entities that records every change it undergoes.
///
/// ```swift
/// var cards = EntityStore<Card>()
/// cards[card.id] = card                          // insert or update, recorded
/// cards.modify(card.id) { $0.title = "New" }     // in place, recorded if it changed
/// cards[card.id] = nil                           // delete, recorded
/// let all = cards.values                         // insertion order
/// cards = EntityStore(arrayFromDB)               // hydration: records nothing
/// ```
///
/// It works like a dictionary that keeps insertion order, and it is a
/// `RandomAccessCollection` of its entities (positions `0..<count`), so SwiftUI's
/// `ForEach(store.cards) { card in … }` works on it directly.
///
/// Ids can be of any `Hashable & Sendable` type (`UUID`, `Int`, `String`, …). Two labelled
/// subscripts say which access you mean: `store[id: x]` (`Entity?`, by id) and
/// `store[position: i]` (`Entity`, by place in the order). The unlabelled `store[id]` is
/// the lookup by id; with `Int` ids it stays the lookup by id, and its old fallback to a
/// position where only an `Entity` fits (`store[0].title`) is deprecated: write
/// `store[position: 0]`.
///
/// Every mutation that changes the contents records the ids involved in ``changes``
/// (which the ``PersistenceMiddleware`` drains after each reducer call) and assigns a
/// new ``changeFingerprint``. A mutation that changes nothing (writing the same value,
/// deleting a missing id, sorting a sorted store) records nothing and keeps the
/// fingerprint, so that observers are not notified.
///
/// Inserting, updating, looking up and deleting an entity by id are amortized O(1):
/// a delete leaves a tombstone rather than shifting the entities that follow, and the
/// tombstones are swept away in bulk once they are more than twice the entities.
public struct EntityStore<Entity: Identifiable & Equatable & Sendable>: Sendable where Entity.ID: Sendable {
    /// The type of the entities' ids.
    public typealias ID = Entity.ID

    @usableFromInline var storage: Storage
    @usableFromInline var _changes = ChangeSet<ID>()
    @usableFromInline var _changeFingerprint = ChangeFingerprint.next() {
        didSet {
            _observationLog.didChange(from: oldValue, to: _changeFingerprint)
            // Every mutation ends here: an undo step being recorded holds the storage again.
            if let capture = _undoCapture { capture.didMutate(storage) }
        }
    }
    /// Which ids each change touched, for observing stores (see EntityStore+Observation).
    @usableFromInline var _observationLog = EntityObservationLog<ID>()
    /// The undo step being recorded, if any (see EntityStore+Undo).
    @usableFromInline var _undoCapture: EntityUndoCapture<Entity>?
    /// Stamped by the state writer that drains this store: a store whose mark is not the
    /// one the writer last stamped is not the continuation of the store it drained (an older
    /// copy, or another store, was assigned over it), and is persisted as the difference.
    @usableFromInline var _drainMark: UInt64 = 0

    /// What changed since the last drain.
    ///
    /// ```swift
    /// var items = EntityStore<Item>()
    /// items[item.id] = item
    /// items.changes.upserted  // [item.id]
    /// ```
    ///
    /// - Complexity: O(1). The store records without hashing ids a second time, so the
    ///   change set it returns answers per-id questions (``ChangeSet/isUpserted(_:)``) by
    ///   walking its records; ``drainChanges()`` returns one indexed by id.
    @inlinable
    public var changes: ChangeSet<ID> { _changes }

    /// A token that changes whenever the contents (entities or their order) change, and
    /// only then. Equal fingerprints imply equal contents.
    ///
    /// - Complexity: O(1).
    @inlinable
    public var changeFingerprint: ChangeFingerprint { _changeFingerprint }

    /// An empty store.
    ///
    /// - Complexity: O(1).
    @inlinable
    public init() {
        storage = Storage()
    }

    /// Hydration: the entities in order, recording nothing. A repeated id keeps its first
    /// place and its last value.
    ///
    /// ```swift
    /// let items = EntityStore(try await itemDB.all())
    /// items.changes.isEmpty  // true
    /// ```
    ///
    /// - Complexity: O(*n*), where *n* is the number of entities in the sequence.
    @inlinable
    public init(_ entities: some Sequence<Entity>) {
        storage = Storage(minimumCapacity: entities.underestimatedCount)
        for entity in entities { storage.put(entity) }
    }

    @inlinable
    init(storage: Storage) {
        self.storage = storage
    }

    /// The number of entities.
    ///
    /// - Complexity: O(1).
    @inlinable
    public var count: Int { storage.count }

    /// `true` when the store holds no entity.
    ///
    /// - Complexity: O(1).
    @inlinable
    public var isEmpty: Bool { storage.count == 0 }

    /// The entities in order.
    ///
    /// ```swift
    /// for item in items.values { print(item.title) }
    /// ```
    ///
    /// - Complexity: O(*n*), where *n* is the number of entities.
    @inlinable
    public var values: [Entity] { storage.slots.compactMap { $0 } }

    /// The ids in order.
    ///
    /// - Complexity: O(*n*), where *n* is the number of entities.
    @inlinable
    public var ids: [ID] { storage.slots.compactMap { $0?.id } }

    /// `true` if an entity has the id `id`.
    ///
    /// ```swift
    /// if !items.contains(id) { return }
    /// ```
    ///
    /// - Complexity: O(1) on average (one hash lookup).
    @inlinable
    public func contains(_ id: ID) -> Bool { storage.index[id] != nil }

    /// Reads, inserts (appends), replaces or (with `nil`) deletes the entity with `id`.
    /// Recorded, unless it changes nothing: a new id as an insertion, a present one as an
    /// update (see ``ChangeSet/inserted``), a deletion with the removed entity's own id.
    ///
    /// ```swift
    /// items[item.id] = item            // insert (append) or replace
    /// let found = items[item.id]       // lookup
    /// items[item.id]?.title = "Renamed"
    /// items[item.id] = nil             // delete
    /// ```
    ///
    /// The entity's own id must be `id`.
    ///
    /// - Complexity: Reading: O(1) on average. Writing: amortized O(1) on average; O(*n*)
    ///   for the first write to a store whose storage is shared with a copy.
    @inlinable
    public subscript(id: ID) -> Entity? {
        get { storage.entity(forID: id) }
        set {
            // Consumed: a `nil` left to destroy at the end costs a call through the
            // metadata of `Entity?` on every deletion.
            switch consume newValue {
            case .some(let newValue):
                precondition(newValue.id == id, "EntityStore: the entity's id \(newValue.id) differs from the subscript id \(id)")
                if isKnownUniquelyReferenced(&storage) {
                    // Unique storage: one hash of the id for the lookup and the insertion.
                    let (slot, isNew) = storage.claimSlot(for: id)
                    if isNew {
                        captureForUndo(.insertion(id))
                        storage.slots.append(newValue)
                        recordUpsert(id, isNew: true, slot: slot)
                        _observationLog.record(id, membership: true)
                    } else {
                        guard storage.slots[slot] != newValue else { return }
                        captureUpdateForUndo(inSlot: slot)
                        storage.replace(inSlot: slot, with: newValue)
                        recordUpsert(id, isNew: false, slot: slot)
                        _observationLog.record(id)
                    }
                } else if let slot = storage.index[id] {
                    guard storage.slots[slot] != newValue else { return }
                    captureUpdateForUndo(inSlot: slot)
                    makeUnique()
                    storage.replace(inSlot: slot, with: newValue)
                    recordUpsert(id, isNew: false, slot: slot)
                    _observationLog.record(id)
                } else {
                    captureForUndo(.insertion(id))
                    makeUnique()
                    storage.append(newValue)
                    recordUpsert(id, isNew: true, slot: storage.slots.count - 1)
                    _observationLog.record(id, membership: true)
                }
            case .none:
                // Record the removed entity's own id, not the caller's key: they are equal
                // but may differ in representation (canonically equivalent strings), and
                // backends compare bytes.
                let removed: ID
                if isKnownUniquelyReferenced(&storage) {
                    if _undoCapture != nil, let slot = storage.index[id] {
                        captureForUndo(.removal(storage.entity(inSlot: slot), slot: slot))
                    }
                    // Unique storage: one hash of the id.
                    guard let slot = storage.index.removeValue(forKey: id) else { return }
                    removed = storage.id(inSlot: slot)
                    // Before clearing: a clear may compact, moving the slot's stamp.
                    recordDeletion(removed, slot: slot)
                    storage.clear(slot: slot)
                } else {
                    guard let slot = storage.index[id] else { return }
                    removed = storage.id(inSlot: slot)
                    captureForUndo(.removal(storage.entity(inSlot: slot), slot: slot))
                    recordDeletion(removed, slot: slot)
                    makeUnique()
                    storage.remove(id)
                }
                _observationLog.record(removed, membership: true)
            }
            _changeFingerprint = .next()
        }
    }

    /// Mutates the entity with `id` in place; records the change only if the value changed.
    ///
    /// ```swift
    /// items.modify(id) { $0.isDone.toggle() }   // recorded
    /// items.modify(id) { _ in }                 // changes nothing: records nothing
    /// ```
    ///
    /// `body` must not change the entity's id. If `body` throws, the store is unchanged.
    ///
    /// - Returns: `false` if there is no entity with that id.
    /// - Complexity: Amortized O(1) on average, plus the cost of `body` and of comparing
    ///   the entity before and after.
    @inlinable
    @discardableResult
    public mutating func modify(_ id: ID, _ body: (inout Entity) throws -> Void) rethrows -> Bool {
        guard let slot = storage.index[id] else { return false }
        let old = storage.entity(inSlot: slot)
        var value = old
        try body(&value)
        precondition(value.id == id, "EntityStore.modify must not change the entity's id")
        guard value != old else { return true }
        // The entity's own id (equal to `id`, possibly not in representation).
        let entityID = value.id
        captureUpdateForUndo(consume old, slot: slot)
        makeUnique()
        storage.replace(inSlot: slot, with: consume value)
        recordUpsert(entityID, isNew: false, slot: slot)
        _observationLog.record(entityID)
        _changeFingerprint = .next()
        return true
    }

    /// Sorts the entities; records a reorder if the order changed.
    ///
    /// ```swift
    /// cards.sort { $0.sortIndex < $1.sortIndex }
    /// ```
    ///
    /// If `areInIncreasingOrder` throws, the store is unchanged.
    ///
    /// - Complexity: O(*n* log *n*), where *n* is the number of entities.
    @inlinable
    public mutating func sort(by areInIncreasingOrder: (Entity, Entity) throws -> Bool) rethrows {
        guard count > 1 else { return }
        // Each entity with its slot: the index is then updated from the permutation,
        // without hashing an id, and the change set's stamps move with their entities.
        var sorted = storage.entitiesWithSlots()
        try sorted.sort { try areInIncreasingOrder($0.entity, $1.entity) }
        // Unchanged exactly when the slots are still in increasing order.
        guard sorted.indices.dropFirst().contains(where: { sorted[$0].slot < sorted[$0 - 1].slot }) else { return }
        captureForUndo(.reorder(ids))
        makeUnique()
        storage.permute(to: sorted)
        _changes.recordReorder()
        _observationLog.recordMembership()
        _changeFingerprint = .next()
    }

    /// Removes the entities that match; records each deletion, in order.
    ///
    /// ```swift
    /// cards.removeAll { $0.isArchived }
    /// ```
    ///
    /// The predicate is called once per entity, in order, before anything is removed:
    /// if it throws, the store is unchanged.
    ///
    /// - Complexity: O(*n*), where *n* is the number of entities.
    @inlinable
    public mutating func removeAll(where shouldBeRemoved: (Entity) throws -> Bool) rethrows {
        var doomed: [Int] = []
        for slot in storage.slots.indices {
            if let entity = storage.slots[slot], try shouldBeRemoved(entity) {
                doomed.append(slot)
            }
        }
        guard let lowest = doomed.first else { return }
        if doomed.count == count {
            removeAll()
            return
        }
        captureForUndo(.removals(slots: doomed))
        makeUnique()
        // More ids than the observation log keeps for one step: log none, the step is then
        // "anything may have changed" (as when the log drops a step too large).
        if doomed.count <= EntityObservationLog<ID>.maxIDs {
            for slot in doomed { _observationLog.record(storage.id(inSlot: slot), membership: true) }
        }
        _changes.reserveCapacity(doomed.count)
        for slot in doomed { recordDeletion(storage.id(inSlot: slot), slot: slot) }
        if doomed.count * 3 >= (count - doomed.count) * 2 {
            // Many go: indexing the survivors anew hashes less than removing these one by one.
            storage.removeReindexing(doomed)
        } else {
            for slot in doomed { storage.tombstone(slot: slot) }
            storage.didRemove(lowestSlot: lowest, highestSlot: doomed[doomed.count - 1])
        }
        _changeFingerprint = .next()
    }

    /// Removes every entity; records each deletion, in order.
    ///
    /// - Complexity: O(*n*), where *n* is the number of entities.
    @inlinable
    public mutating func removeAll() {
        guard !isEmpty else { return }
        captureForUndo(.removeAll)
        _changes.reserveCapacity(count)
        for slot in storage.slots.indices where storage.isLive(slot) {
            recordDeletion(storage.id(inSlot: slot), slot: slot)
        }
        storage = Storage()
        _changeFingerprint = .next()
    }

    /// Moves the entities at `offsets` to `destination` (SwiftUI `onMove` semantics);
    /// records a reorder if the order changed.
    ///
    /// The moved entities keep their relative order and land before the entity that was at
    /// `destination` (at the end when `destination == count`).
    ///
    /// ```swift
    /// // [a, b, c, d]
    /// items.move(fromOffsets: [0], toOffset: 3)   // [b, c, a, d]
    /// List { ForEach(store.items) { … }.onMove { store.send(.move($0, $1)) } }
    /// ```
    ///
    /// Every offset must be in `0..<count`; `destination` is clamped to `0...count`.
    ///
    /// - Complexity: O(*k* + *d* log *r*) where *k* is the distance between the lowest and
    ///   the highest position involved, *d* ≤ *k* and *r* the number of ranges in
    ///   `offsets`; plus O(*n*) when entities were deleted since the last compaction.
    @inlinable
    public mutating func move(fromOffsets offsets: IndexSet, toOffset destination: Int) {
        guard let first = offsets.first, let last = offsets.last else { return }
        precondition(first >= 0 && last < count, "EntityStore.move: offsets \(offsets) out of range 0..<\(count)")
        let destination = Swift.min(Swift.max(destination, 0), count)
        // Only the window between the lowest and the highest position involved changes.
        let low = Swift.min(first, destination)
        let high = Swift.max(last + 1, destination)
        var before: [Entity] = [], moving: [Entity] = [], after: [Entity] = []
        for position in low..<high {
            let entity = self[position]
            if offsets.contains(position) {
                moving.append(entity)
            } else if position < destination {
                before.append(entity)
            } else {
                after.append(entity)
            }
        }
        let window = before + moving + after
        let changed = window.indices.contains { offset in
            storage.entity(inSlot: storage.slot(forPosition: low + offset)).id != window[offset].id
        }
        guard changed else { return }
        captureForUndo(.reorder((low..<high).map { self[$0].id }))
        _changes.indexAll()
        makeUnique()
        storage.compactIfNeeded()
        for (offset, entity) in window.enumerated() {
            storage.slots[low + offset] = entity
            storage.index[entity.id] = low + offset
        }
        _changes.recordReorder()
        _observationLog.recordMembership()
        _changeFingerprint = .next()
    }

    /// Forgets the recorded changes.
    ///
    /// - Complexity: O(*c*), where *c* is the number of recorded ids.
    @inlinable
    public mutating func resetChanges() { _changes.removeAll() }

    /// Returns the recorded changes and forgets them.
    ///
    /// ```swift
    /// let changes = items.drainChanges()
    /// for id in changes.deleted { try await itemDB.delete(id: id) }
    /// ```
    ///
    /// - Complexity: O(*c*), where *c* is the number of recorded ids.
    @inlinable
    public mutating func drainChanges() -> ChangeSet<ID> {
        var drained = _changes
        drained.indexAll()
        _changes = ChangeSet()
        return drained
    }

    // MARK: Internals

    /// Removes the entities with `ids` without recording anything (they are already gone
    /// from the backend: another writer deleted them). Returns `true` if any was present.
    @discardableResult
    mutating func removeUnrecorded(_ ids: some Sequence<ID>) -> Bool {
        // A removed id may have an entry that its stamp no longer leads to.
        _changes.indexAll()
        var removed = false
        for id in ids {
            guard let slot = storage.index[id] else { continue }
            captureForUndo(.removal(storage.entity(inSlot: slot), slot: slot))
            makeUnique()
            storage.remove(id)
            _observationLog.record(id, membership: true)
            removed = true
        }
        if removed { _changeFingerprint = .next() }
        return removed
    }

    /// Records an insertion (`isNew`) or update of `id`, whose entity is in `slot` of the
    /// storage, which must be uniquely referenced.
    @inlinable
    mutating func recordUpsert(_ id: ID, isNew: Bool, slot: Int) {
        let current = !isNew && _changes.mayHaveStampedUpserts ? storage.stamp(at: slot) : 0
        let stamp = _changes.recordUpsert(id, isNew: isNew, slot: slot, stamp: current)
        storage.setStamp(stamp, at: slot)
    }

    /// Records the deletion of `id`, whose entity is (still) in `slot` of the storage.
    @inlinable
    mutating func recordDeletion(_ id: ID, slot: Int) {
        _changes.recordDeletion(id, stamp: _changes.mayHaveStampedUpserts ? storage.stamp(at: slot) : 0)
    }

    /// Copies the storage if it is shared, so that it can be mutated.
    @inlinable
    mutating func makeUnique() {
        if !isKnownUniquelyReferenced(&storage) {
            storage = storage.copy()
        }
    }

    /// `true` if `entities` has the ids of this store in the same order.
    @inlinable
    func hasOrder(of entities: [Entity]) -> Bool {
        guard entities.count == count else { return false }
        var iterator = makeIterator()
        for entity in entities {
            guard let mine = iterator.next(), mine.id == entity.id else { return false }
        }
        return true
    }
}

extension EntityStore: ChangeFingerprinting {}
