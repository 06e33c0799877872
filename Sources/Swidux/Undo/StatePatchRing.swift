/// The undo steps of a ``Store``'s history, oldest first, at most `limit` of them: appending
/// beyond the limit drops the oldest.
///
/// A ring buffer that moves its steps in and out. (`Deque.append` copies its element into
/// the buffer: a step holds its patches as `Any`, and copying one then destroying the
/// original goes through generic value witnesses, about as costly as recording the step.)
/// Used on the main actor only, by ``UndoMiddleware``.
final class StatePatchRing {
    /// The most steps kept.
    let limit: Int
    private var buffer: UnsafeMutablePointer<StatePatch>
    private var capacity: Int
    /// The physical index of the oldest step.
    private var head = 0
    /// The number of steps held.
    private(set) var count = 0

    init(limit: Int) {
        precondition(limit > 0, "StatePatchRing: the limit must be positive")
        self.limit = limit
        capacity = Swift.min(limit, 16)
        buffer = .allocate(capacity: capacity)
    }

    deinit {
        removeAll()
        buffer.deallocate()
    }

    var isEmpty: Bool { count == 0 }

    /// The physical index of the `position`-th step (0 is the oldest).
    private func slot(_ position: Int) -> Int {
        let slot = head + position
        return slot < capacity ? slot : slot - capacity
    }

    /// Appends `patch` as the newest step; when `limit` steps are held, the oldest is
    /// dropped (its slot is reused), once `recycling` has taken from it what it reuses (in
    /// place: an optional of a step, or a copy, would be copied and destroyed through
    /// generic value witnesses).
    func append(_ patch: consuming StatePatch, recycling: (inout StatePatch) -> Void) {
        if count == limit {
            // Full (the capacity is the limit): the oldest step's slot becomes the newest.
            // Recycled in place, destroyed, and the slot initialized: an assignment over it
            // goes through the step's generic assign-with-take witness. A step the recycling
            // left holding no value is not destroyed: there is nothing to release, and its
            // destruction goes through the step's value witness (about 60 instructions a
            // send in a full history).
            let oldest = buffer + head
            recycling(&oldest.pointee)
            if !StatePatch.holdsNoValue(&oldest.pointee) { oldest.deinitialize(count: 1) }
            oldest.initialize(to: patch)
            head = head + 1 == capacity ? 0 : head + 1
            return
        }
        if count == capacity { grow() }
        (buffer + slot(count)).initialize(to: patch)
        count += 1
    }

    /// Removes and returns the newest step, if any.
    func popLast() -> StatePatch? {
        guard count > 0 else { return nil }
        count -= 1
        return (buffer + slot(count)).move()
    }

    /// The `position`-th step, oldest first.
    subscript(position: Int) -> StatePatch {
        _read {
            precondition(position >= 0 && position < count, "StatePatchRing: index out of range")
            let pointer = buffer + slot(position)
            yield pointer.pointee
        }
        _modify {
            precondition(position >= 0 && position < count, "StatePatchRing: index out of range")
            let pointer = buffer + slot(position)
            yield &pointer.pointee
        }
    }

    /// Drops the steps `shouldRemove` names, keeping the others in order. O(steps).
    func removeAll(where shouldRemove: (StatePatch) -> Bool) {
        var kept = 0
        for position in 0..<count {
            let step = buffer + slot(position)
            if shouldRemove(step.pointee) {
                step.deinitialize(count: 1)
                continue
            }
            // The slot of `kept` is free: its step was moved on or dropped.
            if kept != position { (buffer + slot(kept)).moveInitialize(from: step, count: 1) }
            kept += 1
        }
        count = kept
    }

    /// Drops every step.
    func removeAll() {
        for position in 0..<count { (buffer + slot(position)).deinitialize(count: 1) }
        head = 0
        count = 0
    }

    /// Doubles the capacity (up to `limit`), the steps moved in order to the new buffer.
    private func grow() {
        let newCapacity = Swift.min(limit, Swift.max(capacity * 2, 16))
        let newBuffer = UnsafeMutablePointer<StatePatch>.allocate(capacity: newCapacity)
        for position in 0..<count { (newBuffer + position).moveInitialize(from: buffer + slot(position), count: 1) }
        buffer.deallocate()
        buffer = newBuffer
        capacity = newCapacity
        head = 0
    }
}
