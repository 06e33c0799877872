extension EntityStore {
    /// Applies external changes without recording them (nothing to write back): deletes
    /// `deletions`, replaces the values of `upserts` in place, and places the upserts that
    /// are new to the store or `moved` (see ``ExternalChanges``). With `order`, the store
    /// takes that order afterwards (ids it does not list keep their relative order after
    /// the listed ones). Works on any state (also undo history): absent ids are skipped.
    ///
    /// - Complexity: O(changed) when the placed entities go to the end (new rows appended
    ///   by the source); O(*n*) once when some must go before existing entities, or with `order`.
    mutating func applyExternal(deletions: [ID], upserts: [ExternalUpsert<Entity>], order: [ID]?) {
        // Entities may move between slots (unrecorded): find the recorded ones by id.
        _changes.indexAll()
        var changed = false
        if !deletions.isEmpty, removeUnrecorded(deletions) { changed = true }
        var placed: [ExternalUpsert<Entity>] = []
        for upsert in upserts {
            var upsert = upsert
            if upsert.placeOnly {
                // Keep this state's value (undo history keeps its own).
                guard let current = storage.entity(forID: upsert.entity.id) else { continue }
                upsert.entity = current
            }
            let entity = upsert.entity
            if let slot = storage.index[entity.id] {
                if storage.slots[slot] != entity {
                    makeUnique()
                    storage.replace(inSlot: slot, with: entity)
                    _observationLog.record(entity.id)
                    changed = true
                }
                if upsert.moved { placed.append(upsert) }
            } else {
                placed.append(upsert)
            }
        }
        if !placed.isEmpty {
            // Each goes before the nearest successor the store has (or that is placed too).
            let placedIDs = Set(placed.map(\.entity.id))
            for index in placed.indices {
                let successor = placed[index].successors.first { placedIDs.contains($0) || storage.index[$0] != nil }
                placed[index].successors = successor.map { [$0] } ?? []
            }
            if place(placed) { changed = true }
        }
        if let order, reorderUnrecorded(order) { changed = true }
        if changed { _changeFingerprint = .next() }
    }

    /// Inserts or moves `placed` (in the source's order) to their places. Returns `true` if
    /// the store changed.
    private mutating func place(_ placed: [ExternalUpsert<Entity>]) -> Bool {
        if isPlaced(placed) { return false }
        let placedIDs = Set(placed.map(\.entity.id))
        // Fast path: every run ends at the source's end (or at an id the store does not
        // have): append, moving existing ones to the end.
        let appendable = placed.allSatisfy { upsert in
            guard let successor = upsert.successors.first else { return true }
            return placedIDs.contains(successor) || storage.index[successor] == nil
        }
        if appendable {
            // Nothing to do when they already are the last entities, in this order.
            if placed.count <= count, placed.allSatisfy({ storage.index[$0.entity.id] != nil }) {
                let first = count - placed.count
                let alreadyThere = placed.enumerated().allSatisfy { offset, upsert in
                    storage.index[upsert.entity.id] == storage.slot(forPosition: first + offset)
                }
                if alreadyThere { return false }
            }
            makeUnique()
            for upsert in placed where storage.index[upsert.entity.id] != nil { storage.remove(upsert.entity.id) }
            for upsert in placed {
                storage.append(upsert.entity)
                _observationLog.record(upsert.entity.id, membership: true)
            }
            return true
        }
        // Runs of placed entities, each before the successor of its last one.
        var before: [ID: [Entity]] = [:]
        var atEnd: [Entity] = []
        var run: [Entity] = []
        for upsert in placed {
            run.append(upsert.entity)
            if let successor = upsert.successors.first, placedIDs.contains(successor) { continue }
            if let successor = upsert.successors.first, storage.index[successor] != nil {
                before[successor, default: []] += run
            } else {
                atEnd += run
            }
            run = []
        }
        atEnd += run
        var entities: [Entity] = []
        entities.reserveCapacity(count + placed.count)
        for entity in self where !placedIDs.contains(entity.id) {
            if let run = before[entity.id] { entities += run }
            entities.append(entity)
        }
        entities += atEnd
        guard !hasOrder(of: entities) || entities.contains(where: { storage.index[$0.id] == nil }) else {
            return false
        }
        storage = Storage(uniqueEntities: entities)
        for upsert in placed { _observationLog.record(upsert.entity.id, membership: true) }
        return true
    }

    /// `true` when every entity of `placed` is in the store and directly followed by its
    /// successor (the last one when the successor is `nil` or absent): nothing to move.
    private func isPlaced(_ placed: [ExternalUpsert<Entity>]) -> Bool {
        for upsert in placed {
            guard var slot = storage.index[upsert.entity.id] else { return false }
            slot += 1
            while slot < storage.slots.count, !storage.isLive(slot) { slot += 1 }
            let next = slot < storage.slots.count ? storage.slots[slot]?.id : nil
            if let successor = upsert.successors.first, storage.index[successor] != nil {
                if next != successor { return false }
            } else if next != nil {
                return false
            }
        }
        return true
    }

    /// Gives the store the order `order` (unlisted ids after, in their order). Returns `true`
    /// if the order changed.
    private mutating func reorderUnrecorded(_ order: [ID]) -> Bool {
        var entities: [Entity] = []
        entities.reserveCapacity(count)
        var listed = Set<ID>(minimumCapacity: order.count)
        for id in order {
            if let entity = storage.entity(forID: id), listed.insert(id).inserted { entities.append(entity) }
        }
        for entity in self where !listed.contains(entity.id) { entities.append(entity) }
        guard !hasOrder(of: entities) else { return false }
        storage = Storage(uniqueEntities: entities)
        _observationLog.recordMembership()
        return true
    }
}
