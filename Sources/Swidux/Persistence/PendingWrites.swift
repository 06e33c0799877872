/// The entities a state writer will write at its next flush: the latest value of each id,
/// in the order the ids were first recorded.
///
/// An id written again (the common case: the same entities edited send after send) is found
/// through the slot its entity occupies in the ``EntityStore``'s storage, without hashing:
/// `bySlot` remembers, per storage slot, the entry last recorded from it. That is only a
/// hint, checked against the entry's id and liveness (slots move when the store compacts,
/// sorts or is replaced); on a miss the id is hashed (`positions`), and the hint updated.
@usableFromInline
struct PendingWrites<Entity: Identifiable & Sendable> where Entity.ID: Sendable {
    @usableFromInline typealias ID = Entity.ID

    /// One pending write.
    @usableFromInline
    struct Entry {
        @usableFromInline var entity: Entity
        /// New to the backend (see ``WriteBatch/insertions``); otherwise an update.
        @usableFromInline var isInsertion: Bool
        /// `false` once removed (its id may be recorded again, as a new entry).
        @usableFromInline var isLive: Bool

        @inlinable
        init(entity: Entity, isInsertion: Bool) {
            self.entity = entity
            self.isInsertion = isInsertion
            isLive = true
        }
    }

    /// The entries in first-recorded order, removed ones included (not live).
    @usableFromInline var entries: [Entry] = []
    /// Live id → its position in `entries`.
    @usableFromInline var positions: [ID: Int] = [:]
    /// Storage slot → position + 1 of the entry last recorded from it (0: none). A hint.
    @usableFromInline var bySlot: [UInt32] = []

    @inlinable init() {}

    /// No pending write.
    @inlinable var isEmpty: Bool { positions.isEmpty }

    /// The number of pending writes.
    @inlinable var count: Int { positions.count }

    /// The pending write of `id`, if any.
    @inlinable
    subscript(id: ID) -> Entry? {
        guard !positions.isEmpty, let position = positions[id] else { return nil }
        return entries[position]
    }

    /// Records `entity` as its id's latest value (an insertion stays one); `slot` is where
    /// the store holds it (-1: unknown). O(1), without hashing when the id was recorded from
    /// that slot before.
    @inlinable
    mutating func record(_ entity: Entity, insertion: Bool, slot: Int) {
        if slot >= 0, slot < bySlot.count {
            let position = Int(bySlot[slot]) &- 1
            if position >= 0, position < entries.count, entries[position].isLive, entries[position].entity.id == entity.id {
                overwrite(at: position, with: entity, insertion: insertion)
                return
            }
        }
        let next = entries.count
        let position = positions.value(forKey: entity.id, insertingIfAbsent: next)
        if position == next {
            entries.append(Entry(entity: entity, isInsertion: insertion))
        } else {
            overwrite(at: position, with: entity, insertion: insertion)
        }
        if slot >= 0, position < Int(UInt32.max) { setHint(slot, position) }
    }

    /// The latest value wins; an insertion stays one.
    @inlinable
    mutating func overwrite(at position: Int, with entity: Entity, insertion: Bool) {
        entries[position].entity = entity
        if insertion { entries[position].isInsertion = true }
    }

    @inlinable
    mutating func setHint(_ slot: Int, _ position: Int) {
        bySlot.setGrowing(UInt32(position + 1), at: slot)
    }

    /// Removes `id`'s pending write; returns it.
    @inlinable
    @discardableResult
    mutating func remove(_ id: ID) -> Entry? {
        guard !positions.isEmpty, let position = positions.removeValue(forKey: id) else { return nil }
        entries[position].isLive = false
        return entries[position]
    }

    /// Removes every pending write (the slot hints stay: they are checked on use).
    @inlinable
    mutating func removeAll() {
        entries.removeAll(keepingCapacity: entries.count <= 4096)
        positions.removeAll(keepingCapacity: positions.count <= 4096)
    }

    /// The live entries, in first-recorded order.
    @inlinable
    var ordered: [Entry] {
        entries.count == positions.count ? entries : entries.filter(\.isLive)
    }
}
