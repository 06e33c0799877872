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
        storage._checkInvariants()
        #endif
    }

    /// How many times the storage was compacted (carried over by copies; a sort, a move
    /// with tombstones or a restore may start a new count). For tests.
    var _compactionCount: Int { storage.compactionCount }

    /// The number of tombstones in the storage. For tests.
    var _tombstoneCount: Int { storage.tombstoneCount }
}

extension EntityStore.Storage {
    func _checkInvariants() {
        #if DEBUG
        precondition(index.count <= slots.count, "EntityStore: more ids indexed (\(index.count)) than slots (\(slots.count))")
        for (id, slot) in index {
            precondition(slots.indices.contains(slot), "EntityStore: id \(id) indexed at slot \(slot), out of 0..<\(slots.count)")
            precondition(slots[slot]?.id == id, "EntityStore: slot \(slot) does not hold id \(id)")
        }
        var live = 0
        var firstEmpty: Int?
        var positions: [Int] = []
        for (slot, entity) in slots.enumerated() {
            if entity != nil {
                live += 1
                positions.append(slot)
            } else if firstEmpty == nil {
                firstEmpty = slot
            }
        }
        precondition(live == index.count, "EntityStore: \(live) live slots but \(index.count) indexed ids")
        precondition(tombstoneCount == slots.count - live, "EntityStore: tombstone count mismatch")
        precondition(slots.last.map { $0 != nil } ?? true, "EntityStore: trailing tombstone")
        precondition(tombstoneCount <= live, "EntityStore: \(tombstoneCount) tombstones outnumber \(live) entities")
        precondition(firstTombstone == (firstEmpty ?? .max), "EntityStore: first tombstone is \(String(describing: firstEmpty)), recorded \(firstTombstone)")
        precondition((positionCache == nil) == (firstEmpty == nil), "EntityStore: position cache present iff there are tombstones")
        if let map = positionCache?.load() {
            precondition(map.base == firstTombstone, "EntityStore: stale position map base")
            for (offset, slot) in map.slots.enumerated() {
                precondition(positions[map.base + offset] == slot, "EntityStore: stale position map at \(map.base + offset)")
            }
        }
        for (position, slot) in positions.enumerated() {
            precondition(self.slot(forPosition: position) == slot, "EntityStore: position \(position) maps to the wrong slot")
        }
        #endif
    }
}
