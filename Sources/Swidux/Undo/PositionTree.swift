/// Positions `0..<count`, from which positions are taken one at a time by rank: a Fenwick
/// tree of the positions not taken yet. O(count) to build, O(log count) per take.
struct PositionTree {
    private var tree: [Int]
    private var remaining: Int
    private let top: Int

    init(count: Int) {
        tree = [Int](repeating: 0, count: count + 1)
        for index in 1...Swift.max(count, 1) where index <= count { tree[index] = index & -index }
        remaining = count
        var top = 1
        while top * 2 <= count { top *= 2 }
        self.top = top
    }

    /// Takes the `rank`-th position not taken yet (0-based, clamped to the last one).
    mutating func take(_ rank: Int) -> Int {
        let k = Swift.min(rank, remaining - 1) + 1
        var position = 0
        var left = k
        var step = top
        while step > 0 {
            let next = position + step
            if next < tree.count, tree[next] < left {
                position = next
                left -= tree[next]
            }
            step /= 2
        }
        // `position` is the 1-based index just before the k-th one: take index position + 1.
        var index = position + 1
        while index < tree.count {
            tree[index] -= 1
            index += index & -index
        }
        remaining -= 1
        return position
    }
}

extension EntityStore.Storage {
    /// The position (0..<count) of the live entity in `slot`. O(1) without tombstones, when
    /// they form one run, or before the first of them; otherwise O(log n) once the position
    /// map of this layout is built (O(n), once per layout).
    func position(ofSlot slot: Int) -> Int {
        if slot < firstTombstone { return slot }
        let tombstones = slots.count - index.count
        if lastTombstone - firstTombstone + 1 == tombstones { return slot - tombstones }
        let map = positionMap()
        var low = 0, high = map.slots.count
        while low < high {
            let middle = (low + high) / 2
            if map.slots[middle] < slot { low = middle + 1 } else { high = middle }
        }
        if low < map.slots.count, map.slots[low] == slot { return map.base + low }
        // Appended after the map was built: the last slots are live and contiguous.
        return index.count - (slots.count - slot)
    }

    /// Inserts absent entities at their final positions (ascending; a position past the
    /// end appends). O(n − lowest position + k).
    func reinsert(_ placed: [(position: Int, entity: Entity)]) {
        compactIfNeeded()
        let low = Swift.min(placed[0].position, slots.count)
        var tail: [Entity?] = []
        tail.reserveCapacity(slots.count - low + placed.count)
        var old = low
        var next = 0
        while old < slots.count || next < placed.count {
            if next < placed.count, old >= slots.count || placed[next].position <= low + tail.count {
                tail.append(placed[next].entity)
                next += 1
            } else {
                tail.append(slots[old])
                old += 1
            }
        }
        slots.replaceSubrange(low..., with: tail)
        for slot in low..<slots.count {
            index[slots[slot].unsafelyUnwrapped.id] = slot
        }
    }
}
