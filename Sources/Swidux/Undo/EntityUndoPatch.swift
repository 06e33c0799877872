/// One change an `EntityStore` is about to make, as reported to an undo capture.
@usableFromInline
enum EntityUndoEvent<Entity: Identifiable & Equatable & Sendable> where Entity.ID: Sendable {
    /// An absent id is about to be appended.
    case insertion(Entity.ID)
    /// Absent ids are about to be inserted (at any positions).
    case insertions([Entity.ID])
    /// The entity in `slot` is about to be removed.
    case removal(Entity, slot: Int)
    /// The entities in these slots (ascending) are about to be removed at once.
    case removals(slots: [Int])
    /// Every entity is about to be removed.
    case removeAll
    /// These ids, in their current relative order, are about to be rearranged.
    case reorder([Entity.ID])
    /// The contents are about to become `other`'s (values and order).
    case replacement(by: EntityStore<Entity>)
    /// `merge(from:)` is about to replace these entities (their values before) and append these ids.
    case merge(replaced: [Entity], added: [Entity.ID])
}

/// The previous values and the membership/order log of one entity store in one undo step.
///
/// What the mutation paths use is `@inlinable`: it is specialized for the entity type in
/// the module that mutates the store (the recording code behind the generic `Store` is not,
/// and would pay generic metadata lookups on every step).
@usableFromInline
struct EntityUndoPatch<Entity: Identifiable & Equatable & Sendable>: @unchecked Sendable where Entity.ID: Sendable {
    @usableFromInline typealias ID = Entity.ID

    /// One membership or order change, in the order they happened.
    @usableFromInline
    enum Step {
        /// The id was inserted (appended, or re-inserted by an undo): undone by removing it.
        case inserted(ID)
        /// The entity was removed at `position` (among the entities present just before):
        /// undone by inserting it back there.
        case removed(Entity, position: Int)
        /// These ids were rearranged; this was their relative order before.
        case reordered([ID])
    }

    /// A touched id's value before its first change in the step (`nil`: absent); the id is
    /// at the same index in `touchedIDs`.
    ///
    /// The id is kept apart: with the id (a `UUID`, say) beside the entity values, the
    /// compiler destroys a touch through its run-time value witnesses even in code
    /// specialized for the entity type (about 150 instructions to drop one touch of a
    /// recycled step); holding only `Entity?` values and an `Int`, it is destroyed inline.
    @usableFromInline
    struct Touch {
        @usableFromInline let previous: Entity?
        /// Its value as the step left it (`nil`: absent), set when the step ends: undo
        /// applied to an entity changed since restores only the fields the step changed
        /// (`EntityFieldMerge`).
        @usableFromInline var after: Entity?
        /// The slot the entity was in when it was noted (-1: unknown): where the end of the
        /// step looks first (the store may have compacted since: the id is checked).
        @usableFromInline let slot: Int
        @inlinable init(previous: consuming Entity?, slot: Int) {
            self.previous = previous
            self.after = nil
            self.slot = slot
        }
    }

    /// The touched ids, in the order they were first touched.
    @usableFromInline var touchedIDs: [ID]
    /// Their previous values (and values after the step), at the same indices.
    @usableFromInline var touches: [Touch]
    /// Touched id → its index in `touchedIDs`, kept once there are more than
    /// `linearLimit` of them (below, a linear scan: no hashing, no table to allocate for
    /// the common step that changes a few entities).
    @usableFromInline var places: [ID: Int]?
    /// The membership and order changes, oldest first.
    @usableFromInline var steps: [Step]

    @usableFromInline static var linearLimit: Int { 16 }

    /// Empty (no literal: a literal costs a tuple metadata lookup where not specialized).
    @usableFromInline
    init() {
        touchedIDs = Array()
        touches = Array()
        places = nil
        steps = Array()
    }

    @usableFromInline var isEmpty: Bool { touches.isEmpty && steps.isEmpty }

    /// Keeps `value` as `id`'s previous value unless the step touched `id` already.
    /// Returns `false` if it had (the first value stays).
    @inlinable
    @discardableResult
    mutating func note(_ id: ID, _ value: consuming Entity?, slot: Int = -1) -> Bool {
        if places == nil {
            for index in touchedIDs.indices where touchedIDs[index] == id { return false }
            touchedIDs.append(id)
            touches.append(Touch(previous: value, slot: slot))
            if touches.count > Self.linearLimit { indexTouches() }
        } else {
            guard places![id] == nil else { return false }
            places![id] = touches.count
            touchedIDs.append(id)
            touches.append(Touch(previous: value, slot: slot))
        }
        return true
    }

    /// Builds `places` from `touchedIDs` (or drops it when they are few again).
    @usableFromInline
    mutating func indexTouches() {
        guard touches.count > Self.linearLimit else {
            places = nil
            return
        }
        var places: [ID: Int] = Dictionary(minimumCapacity: touches.count)
        for index in touchedIDs.indices { places[touchedIDs[index]] = index }
        self.places = places
    }

    /// Folds a later patch into this one (coalescing): the first previous value wins, the
    /// logs are concatenated.
    mutating func append(_ newer: EntityUndoPatch) {
        for (id, touch) in zip(newer.touchedIDs, newer.touches) {
            if note(id, touch.previous, slot: touch.slot) {
                touches[touches.count - 1].after = touch.after
            } else {
                let index = places?[id] ?? touchedIDs.firstIndex(of: id)!
                touches[index].after = touch.after
            }
        }
        steps += newer.steps
    }

    /// Drops `ids` from the patch (they left the state without an undo step: another
    /// writer deleted them), so that applying it does not bring them back.
    mutating func forget(_ ids: Set<ID>) {
        guard !touches.isEmpty || !steps.isEmpty else { return }
        if touchedIDs.contains(where: { ids.contains($0) }) {
            keepTouches { id, _ in !ids.contains(id) }
            indexTouches()
        }
        steps = steps.compactMap { step in
            switch step {
            case .inserted(let id): return ids.contains(id) ? nil : step
            case .removed(let entity, _): return ids.contains(entity.id) ? nil : step
            case .reordered(let order):
                let kept = order.filter { !ids.contains($0) }
                return kept.count > 1 ? .reordered(kept) : nil
            }
        }
    }

    /// Ends the step on `storage`, the store's storage now: keeps each touched id's value
    /// after the step; with `mayHoldUnchanged`, drops the touched ids whose value is back to
    /// the previous one (the step changed them and changed them back: undo must not
    /// overwrite a later change of theirs), and when nothing is left but membership or order
    /// changes that cancel out (delete and re-insert, insert then delete, a sort back to the
    /// same order), drops those too: the step changed nothing.
    @inlinable
    mutating func finishStep(_ storage: EntityStore<Entity>.Storage, mayHoldUnchanged: Bool) {
        var dropped = false
        for index in touches.indices {
            // The id and slot read alone: passing the touch would copy it (its previous value
            // and all), only to destroy the copy.
            let now = Self.current(id: touchedIDs[index], slot: touches[index].slot, in: storage)
            if mayHoldUnchanged, now == touches[index].previous { dropped = true }
            touches[index].after = now
        }
        if dropped {
            keepTouches { _, touch in touch.after != touch.previous }
            indexTouches()
        }
        if touches.isEmpty, !steps.isEmpty, restoresOrder(of: storage) { steps.removeAll() }
    }

    /// Keeps the touched ids (and their touches) that `isKept` accepts, in order.
    @usableFromInline
    mutating func keepTouches(_ isKept: (ID, Touch) -> Bool) {
        var keptIDs: [ID] = []
        var kept: [Touch] = []
        for index in touches.indices where isKept(touchedIDs[index], touches[index]) {
            keptIDs.append(touchedIDs[index])
            kept.append(touches[index])
        }
        touchedIDs = keptIDs
        touches = kept
    }

    /// Whether replaying the membership and order log backwards on the current order gives
    /// the current order again (the log cancels out). O(n × steps); called only when no
    /// entity value changed, after a removal, insertion or reorder (each O(n) already).
    @usableFromInline
    func restoresOrder(of storage: EntityStore<Entity>.Storage) -> Bool {
        let now = storage.slots.compactMap { $0?.id }
        var order = now
        for step in steps.reversed() {
            switch step {
            case .inserted(let id):
                guard let index = order.firstIndex(of: id) else { return false }
                order.remove(at: index)
            case .removed(let entity, let position):
                order.insert(entity.id, at: Swift.min(Swift.max(position, 0), order.count))
            case .reordered(let previous):
                let members = Set(previous)
                let positions = order.indices.filter { members.contains(order[$0]) }
                guard positions.count == previous.count else { return false }
                for (position, id) in zip(positions, previous) { order[position] = id }
            }
        }
        return order == now
    }

    /// The touched entity's value now: in its noted slot if it is still there (no hashing),
    /// else looked up by id.
    @inlinable
    static func current(id: ID, slot: Int, in storage: EntityStore<Entity>.Storage) -> Entity? {
        if slot >= 0, slot < storage.slots.count, let entity = storage.slots[slot], entity.id == id {
            return entity
        }
        return storage.entity(forID: id)
    }

    /// Ids the patch holds a value or a log entry for (for tests and diagnostics).
    var count: Int { touches.count + steps.count }

    /// The most touches or log entries whose buffers a recycled patch keeps (see
    /// ``clearForReuse()``): a step that touched many entities frees its buffers instead, so
    /// that a later small step does not hold them in the history.
    @usableFromInline static var reusableCapacity: Int { 64 }

    /// Empties the patch, keeping its buffers when they are small (for the next step).
    @inlinable
    mutating func clearForReuse() {
        if touches.capacity <= Self.reusableCapacity, steps.capacity <= Self.reusableCapacity {
            touchedIDs.removeAllOneByOne()
            touches.removeAllOneByOne()
            // Most steps log no membership change: an empty array's removal still checks it
            // is uniquely referenced.
            if !steps.isEmpty { steps.removeAllOneByOne() }
            if places != nil { places = nil }
        } else {
            self = EntityUndoPatch()
        }
    }
}

/// An entity store's patch in an undo step, as the step holds it (a non-generic base: the
/// step's code is not specialized for the entity types).
@usableFromInline
class UndoStorePatch {
    @usableFromInline init() {}
}

/// An ``EntityUndoPatch`` in a box: moving a step moves a reference, and a step dropped from
/// a full history gives its box (and the box's buffers) back to its store slot for reuse
/// (see `UndoLayout.recycle`). A box is not mutated while a step holds it.
@usableFromInline
final class EntityUndoPatchBox<Entity: Identifiable & Equatable & Sendable>: UndoStorePatch, @unchecked Sendable
where Entity.ID: Sendable {
    /// Unchecked: accessed on the thread that records the store's steps, never while
    /// another access is open (a checked access costs a run-time exclusivity check).
    @exclusivity(unchecked) @usableFromInline var patch: EntityUndoPatch<Entity>

    @usableFromInline
    init(_ patch: EntityUndoPatch<Entity>) {
        self.patch = patch
    }
}
