extension EntityStore {
    /// Checks that the index, the slots and the bookkeeping agree. Debug builds only
    /// (a no-op in release builds); O(*n*). Called from tests.
    ///
    /// - index ↔ slots: every indexed id is in its slot, every live slot is indexed;
    /// - the live count is the number of non-empty slots;
    /// - the last slot is live (trailing tombstones are popped);
    /// - tombstones never outnumber the living (the compaction policy);
    /// - the first-tombstone mark is exact and the position map, when built, is right.
    func _checkInvariants() {
        #if DEBUG
        if let violation = storage._invariantViolation() {
            preconditionFailure(violation)
        }
        #endif
    }

    /// The first broken invariant, described, or `nil` (always `nil` in release builds).
    /// For tests that want to report rather than crash.
    func _invariantViolation() -> String? {
        #if DEBUG
        return storage._invariantViolation()
        #else
        return nil
        #endif
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
        guard tombstoneCount <= live else { return "EntityStore: \(tombstoneCount) tombstones outnumber \(live) entities" }
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
