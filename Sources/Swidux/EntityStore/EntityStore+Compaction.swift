import Atomics

// Removal bookkeeping and compaction of the storage behind `EntityStore` (see the layout
// notes in EntityStore+Storage): trailing tombstones are popped at once, and the slots
// are rebuilt without tombstones once these are more than twice the living.
extension EntityStore.Storage {
    /// Bookkeeping after tombstones were made between `lowestSlot` and `highestSlot`:
    /// invalidates the position map, pops trailing tombstones, compacts when they
    /// are more than twice the living.
    @inlinable
    func didRemove(lowestSlot: Int, highestSlot: Int) {
        if firstTombstone == .max {
            firstTombstone = lowestSlot
            lastTombstone = highestSlot
        } else {
            if lowestSlot < firstTombstone { firstTombstone = lowestSlot }
            if highestSlot > lastTombstone { lastTombstone = highestSlot }
        }
        if highestSlot == slots.count - 1 {
            // Only a removal at the end leaves trailing tombstones.
            while !slots.isEmpty, !isLive(slots.count - 1) { slots.removeLast() }
        }
        // The last slot is live: no tombstone is above the one before it.
        if lastTombstone > slots.count - 2 { lastTombstone = slots.count - 2 }
        if firstTombstone >= slots.count {
            // Every tombstone was trailing: none is left.
            firstTombstone = .max
            lastTombstone = -1
            positionCache = nil
        } else if tombstoneCount > 2 * index.count {
            compact()
        } else if !hasEmptyPositionCache {
            // No cache, or its map was built (stale now): a fresh, empty one.
            positionCache = ManagedAtomicLazyReference()
        }
    }

    /// Rebuilds the slots without tombstones and updates the index in place (no
    /// hashing). O(slots).
    @inlinable
    func compact() {
        guard firstTombstone < slots.count else { return }
        let first = firstTombstone
        // The new slot of every live slot from `first` on (only live slots are read:
        // the others stay uninitialized).
        var moved = [Int](unsafeUninitializedCapacity: slots.count - first) { _, count in count = slots.count - first }
        let write = Self.compact(&fields.pointee.slots, stamps: &fields.pointee.stamps, from: first, moved: &moved)
        if stamps.count > write { stamps.removeLast(stamps.count - write) }
        Self.remap(&index.values, from: first, to: moved)
        compactionCount += 1
        compactionWork += slots.count - firstTombstone
        // The slots from `write` on are all tombstones.
        slots.removeLastOneByOne(slots.count - write)
        firstTombstone = .max
        lastTombstone = -1
        positionCache = nil
    }

    /// Moves the live slots from `first` on down over the tombstones, with their stamps
    /// (a missing stamp is 0); `moved[slot - first]` gets each one's new slot (unless
    /// `moved` is empty). Returns
    /// the number of slots kept. One exclusive access to each array, no copy of an entity.
    @inlinable
    static func compact(_ slots: inout [Entity?], stamps: inout [UInt32], from first: Int, moved: inout [Int]) -> Int {
        let stamped = Swift.min(stamps.count, slots.count)
        var write = first
        stamps.withUnsafeMutableBufferPointer { stamps in
            slots.withUnsafeMutableBufferPointer { slots in
                // Everything from `write` to `read` is a tombstone (`nil`, which owns
                // nothing): the entity moves down over it, without a copy, a retain or a
                // release, and leaves a tombstone behind.
                let base = slots.baseAddress.unsafelyUnwrapped
                for read in first..<slots.count where isLive(slots[read]) {
                    if read != write {
                        (base + write).moveInitialize(from: base + read, count: 1)
                        (base + read).initialize(to: nil)
                    }
                    if read < stamped { stamps[write] = stamps[read] } else if write < stamped { stamps[write] = 0 }
                    if !moved.isEmpty { moved[read - first] = write }
                    write += 1
                }
            }
        }
        return write
    }

    /// Replaces each slot from `first` on by its new place in `moved`.
    @inlinable
    static func remap(_ values: inout Dictionary<Entity.ID, Int>.Values, from first: Int, to moved: [Int]) {
        var position = values.startIndex
        while position != values.endIndex {
            let slot = values[position]
            if slot >= first { values[position] = moved[slot - first] }
            values.formIndex(after: &position)
        }
    }

    /// The live entities in order, each with its slot.
    @inlinable
    func entitiesWithSlots() -> [(entity: Entity, slot: Int)] {
        var result: [(entity: Entity, slot: Int)] = []
        result.reserveCapacity(index.count)
        for slot in slots.indices {
            if let entity = slots[slot] { result.append((entity, slot)) }
        }
        return result
    }

    /// Puts the live entities in the order of `order` (all of them, each with its current
    /// slot), with no tombstone left: the index is remapped from the permutation (no
    /// hashing) and the stamps move with their entities. O(slots).
    @inlinable
    func permute(to order: [(entity: Entity, slot: Int)]) {
        var moved = [Int](repeating: 0, count: slots.count)
        let stamped = stamps.count
        var newStamps = [UInt32](repeating: 0, count: stamped == 0 ? 0 : order.count)
        var newSlots: [Entity?] = []
        newSlots.reserveCapacity(order.count)
        for (position, item) in order.enumerated() {
            moved[item.slot] = position
            newSlots.append(item.entity)
            if item.slot < stamped { newStamps[position] = stamps[item.slot] }
        }
        slots = newSlots
        stamps = newStamps
        Self.remap(&index.values, from: 0, to: moved)
        firstTombstone = .max
        lastTombstone = -1
        positionCache = nil
    }

    /// Deletes the live entities in `doomed` (ascending slots) and every tombstone, then
    /// indexes the survivors anew: one hash per survivor, against one hash per deleted
    /// id plus the rehash of its neighbours when removing ids from the index one by one.
    /// The cheaper way when many go. O(slots).
    @inlinable
    func removeReindexing(_ doomed: [Int]) {
        Self.clear(&fields.pointee.slots, doomed)
        let first = Swift.min(doomed[0], firstTombstone)
        var noMoves: [Int] = []
        let kept = Self.compact(&fields.pointee.slots, stamps: &fields.pointee.stamps, from: first, moved: &noMoves)
        slots.removeLast(slots.count - kept)
        if stamps.count > kept { stamps.removeLast(stamps.count - kept) }
        index = [:]   // the old table freed before the new one is built
        index = Self.index(of: slots)
        firstTombstone = .max
        lastTombstone = -1
        positionCache = nil
    }

    @inlinable
    static func clear(_ slots: inout [Entity?], _ doomed: [Int]) {
        slots.withUnsafeMutableBufferPointer { slots in
            for slot in doomed { slots[slot] = nil }
        }
    }

    /// Id → slot of tombstone-free `slots`.
    @inlinable
    static func index(of slots: [Entity?]) -> [Entity.ID: Int] {
        var index = [Entity.ID: Int](minimumCapacity: slots.count)
        for slot in slots.indices { index[slots[slot].unsafelyUnwrapped.id] = slot }
        return index
    }

    /// Makes the slots contiguous if they have tombstones.
    @inlinable
    func compactIfNeeded() {
        if firstTombstone != .max { compact() }
    }
}
