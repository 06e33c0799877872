import Foundation

/// Folding another store into this one: re-hydration (`merge(from:preferExisting:)`) and
/// restoring a snapshot while recording the differences (`restore(from:)`).
extension EntityStore {
    /// Re-hydration: folds `other` in without recording anything.
    ///
    /// For an id in both, `preferExisting(otherValue, selfValue)` returning `true` keeps
    /// `other`'s value. Entities only in `other` are appended, in `other`'s order.
    ///
    /// ```swift
    /// var merged = EntityStore(allFromDB)
    /// merged.merge(from: existingStore) { existing, incoming in
    ///     existing.richData != nil && incoming.richData == nil
    /// }
    /// store.property = merged
    /// ```
    ///
    /// `preferExisting` is called once per id in both, in `other`'s order, before anything
    /// changes: if it throws, the store is unchanged.
    ///
    /// An entity it adds back after this store deleted it (the deletion recorded, waiting in
    /// a ``StateWriter`` or in flight) is written again by the ``PersistenceMiddleware``, as
    /// an insertion at its new place, so that the backend does not delete what the store has.
    ///
    /// - Complexity: O(*m*) on average, where *m* is the number of entities in `other`;
    ///   O(1) when this store is empty.
    @inlinable
    public mutating func merge(from other: EntityStore, preferExisting: (Entity, Entity) throws -> Bool) rethrows {
        if isEmpty {
            guard !other.isEmpty else { return }
            captureForUndo(.merge(replaced: [], added: other.ids))
            _changes.indexAll()
            storage = other.storage
            _changes._rehydrated = true
            _changeFingerprint = .next()
            return
        }
        var replacements: [(slot: Int, entity: Entity)] = []
        var additions: [Entity] = []
        for entity in other {
            if let slot = storage.index[entity.id] {
                let current = storage.entity(inSlot: slot)
                if try preferExisting(entity, current), current != entity {
                    replacements.append((slot, entity))
                }
            } else {
                additions.append(entity)
            }
        }
        guard !replacements.isEmpty || !additions.isEmpty else { return }
        captureForUndo(.merge(replaced: replacements.map { storage.entity(inSlot: $0.slot) }, added: additions.map(\.id)))
        // Entities added back after a recorded deletion: their deletions must be found by id.
        _changes.indexAll()
        makeUnique()
        for replacement in replacements { storage.replace(inSlot: replacement.slot, with: replacement.entity) }
        for entity in additions { storage.append(entity) }
        if !additions.isEmpty { _changes._rehydrated = true }
        for replacement in replacements { _observationLog.record(replacement.entity.id) }
        for entity in additions { _observationLog.record(entity.id, membership: true) }
        _changeFingerprint = .next()
    }

    /// Makes this store equal to `other` (values and order), recording exactly the
    /// differences: a deletion for each id missing from `other` (in this store's order), an
    /// upsert for each id of `other` that is new or whose value differs (in `other`'s
    /// order), and a reorder unless `other`'s order is what deleting the missing entities
    /// and appending the new ones would give.
    ///
    /// Undo uses it: restoring a snapshot persists the difference.
    ///
    /// ```swift
    /// let snapshot = state.items
    /// state.items[id] = nil
    /// state.items.restore(from: snapshot)   // records an upsert of `id`
    /// ```
    ///
    /// - Complexity: O(*n* + *m*) on average, where *n* and *m* are the numbers of
    ///   entities in this store and in `other`; O(1) when they share their storage.
    @inlinable
    public mutating func restore(from other: EntityStore) {
        guard storage !== other.storage else { return }
        captureForUndo(.replacement(by: other))
        _changes.indexAll()
        var changed = false
        for entity in self where other.storage.index[entity.id] == nil {
            _changes.recordDeletion(entity.id)
            _observationLog.record(entity.id, membership: true)
            changed = true
        }
        var survivors = makeIterator()
        var seenNew = false
        var orderChanged = false
        for entity in other {
            if let slot = storage.index[entity.id] {
                if storage.entity(inSlot: slot) != entity {
                    _changes.recordUpdate(entity.id)
                    _observationLog.record(entity.id)
                    changed = true
                }
                // The next entity of ours that `other` keeps must be this one, and no
                // new entity may come before it.
                if !orderChanged {
                    var survivor = survivors.next()
                    while let candidate = survivor, other.storage.index[candidate.id] == nil {
                        survivor = survivors.next()
                    }
                    if seenNew || survivor?.id != entity.id { orderChanged = true }
                }
            } else {
                _changes.recordInsertion(entity.id)
                _observationLog.record(entity.id, membership: true)
                changed = true
                seenNew = true
            }
        }
        if orderChanged {
            _changes.recordReorder()
            _observationLog.recordMembership()
            changed = true
        }
        storage = other.storage
        if changed { _changeFingerprint = .next() }
    }
}
