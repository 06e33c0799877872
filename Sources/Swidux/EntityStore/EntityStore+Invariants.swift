extension EntityStore {
    /// Checks that the index, the slots and the bookkeeping agree. Debug builds only
    /// (a no-op in release builds); O(*n*). Called from tests.
    ///
    /// - index ↔ slots: every indexed id is in its slot, every live slot is indexed;
    /// - the live count is the number of non-empty slots;
    /// - the last slot is live (trailing tombstones are popped);
    /// - tombstones are never more than twice the living (the compaction policy);
    /// - the first-tombstone mark is exact and the position map, when built, is right.
    func _checkInvariants() {
        #if DEBUG
        if let violation = storage._invariantViolation() ?? _changesInvariantViolation() {
            preconditionFailure(violation)
        }
        #endif
    }

    /// The first broken invariant, described, or `nil` (always `nil` in release builds).
    /// For tests that want to report rather than crash.
    func _invariantViolation() -> String? {
        #if DEBUG
        return storage._invariantViolation() ?? _changesInvariantViolation()
        #else
        return nil
        #endif
    }

    /// The change set's bookkeeping: one live entry per recorded id, the counts right, and,
    /// while it finds entries by slot, every live insertion or update stamped in its
    /// entity's slot and every live deletion of an id the store does not have.
    func _changesInvariantViolation() -> String? {
        var seen = Set<ID>()
        var live = 0, stale = 0, deletions = 0
        for (index, entry) in _changes.journal.enumerated() {
            if entry.kind == .stale { stale += 1; continue }
            live += 1
            guard seen.insert(entry.id).inserted else { return "ChangeSet: two live entries for id \(entry.id)" }
            if _changes.bySlot {
                if entry.kind == .deletion {
                    deletions += 1
                    if storage.index[entry.id] != nil { return "ChangeSet: live deletion of id \(entry.id), which the store has" }
                    if index < _changes.unindexedFrom, _changes.places[entry.id] != index {
                        return "ChangeSet: indexed deletion of id \(entry.id) not in places"
                    }
                } else {
                    guard let slot = storage.index[entry.id] else { return "ChangeSet: live upsert of id \(entry.id), which the store lacks" }
                    guard storage.stamp(at: slot) == UInt32(index + 1) else {
                        return "ChangeSet: id \(entry.id) in slot \(slot) stamped \(storage.stamp(at: slot)), its entry is \(index)"
                    }
                }
            } else if _changes.places[entry.id] != index {
                return "ChangeSet: id \(entry.id) not indexed at its entry \(index)"
            }
        }
        guard live == _changes.liveCount, stale == _changes.staleCount else {
            return "ChangeSet: \(live) live and \(stale) stale entries, counted \(_changes.liveCount) and \(_changes.staleCount)"
        }
        if _changes.bySlot, deletions != _changes.liveDeletions {
            return "ChangeSet: \(deletions) live deletions, counted \(_changes.liveDeletions)"
        }
        if !_changes.bySlot, _changes.places.count != live { return "ChangeSet: \(_changes.places.count) ids indexed, \(live) live" }
        return nil
    }

    /// How many times the storage was compacted (carried over by copies; `sort`,
    /// `removeAll()`, `restore` and `merge` into an empty store replace the storage and
    /// start a new count). For tests.
    var _compactionCount: Int { storage.compactionCount }

    /// The number of slots the compactions counted by ``_compactionCount`` swept. For tests.
    var _compactionWork: Int { storage.compactionWork }

    /// The number of tombstones in the storage. For tests.
    var _tombstoneCount: Int { storage.tombstoneCount }
}

extension EntityStore.Storage {
    func _invariantViolation() -> String? {
        guard index.count <= slots.count else { return "EntityStore: more ids indexed (\(index.count)) than slots (\(slots.count))" }
        for (id, slot) in index {
            guard slots.indices.contains(slot) else { return "EntityStore: id \(id) indexed at slot \(slot), out of 0..<\(slots.count)" }
            guard slots[slot]?.id == id else { return "EntityStore: slot \(slot) does not hold id \(id)" }
        }
        var positions: [Int] = []   // position → slot
        var firstEmpty: Int?
        for (slot, entity) in slots.enumerated() {
            if entity != nil {
                positions.append(slot)
            } else if firstEmpty == nil {
                firstEmpty = slot
            }
        }
        let live = positions.count
        guard live == index.count else { return "EntityStore: \(live) live slots but \(index.count) indexed ids" }
        guard tombstoneCount == slots.count - live else { return "EntityStore: tombstone count mismatch" }
        guard slots.last.map({ $0 != nil }) ?? true else { return "EntityStore: trailing tombstone" }
        guard tombstoneCount <= 2 * live else { return "EntityStore: \(tombstoneCount) tombstones, more than twice the \(live) entities" }
        guard firstTombstone == (firstEmpty ?? .max) else {
            return "EntityStore: first tombstone is \(String(describing: firstEmpty)), recorded \(firstTombstone)"
        }
        if let firstEmpty {
            let highest = slots.lastIndex { $0 == nil } ?? firstEmpty
            guard lastTombstone >= highest, lastTombstone < slots.count else {
                return "EntityStore: highest tombstone bound \(lastTombstone) is not in \(highest)..<\(slots.count)"
            }
        }
        guard (positionCache == nil) == (firstEmpty == nil) else { return "EntityStore: position cache present iff there are tombstones" }
        if let map = positionCache?.load() {
            guard map.base == firstTombstone else { return "EntityStore: stale position map base \(map.base)" }
            for (offset, slot) in map.slots.enumerated() where positions[map.base + offset] != slot {
                return "EntityStore: stale position map at \(map.base + offset)"
            }
        }
        // Check positions on a copy when the map is not built, so as not to build it here.
        let probe = positionCache != nil && positionCache?.load() == nil ? copy() : self
        for (position, slot) in positions.enumerated() where probe.slot(forPosition: position) != slot {
            return "EntityStore: position \(position) maps to slot \(probe.slot(forPosition: position)), not \(slot)"
        }
        return nil
    }
}
