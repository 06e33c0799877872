import Atomics

// The copy-on-write buffer behind `EntityStore`.
//
// Layout:
// - `slots` holds the entities in order. Deleting an entity leaves a tombstone (`nil`)
//   in its slot, so a delete never shifts the other entities nor re-indexes them.
// - `index` maps every live id to its slot.
// - Tombstones at the end of `slots` are popped at once, so the last slot is always live.
// - When the tombstones are more than twice the live entities, the slots are compacted
//   (rebuilt without tombstones, the index updated). A compaction costs O(live + tombstones)
//   and is paid for by the more than `2 × live` deletes since the previous one: amortized
//   O(1). (Twice rather than once: deleting everything moves half as many entities, and a
//   `Dictionary`, the alternative, never gives back its capacity at all.)
// - `stamps` (see `ChangeSet`) gives, per slot, the entry of the entity's id in the store's
//   change set, so that recording a change hashes nothing.
// - Positions (0..<count over the live entities) equal slots while there is no tombstone.
//   Otherwise a position → slot map is built lazily, at most once per layout, and
//   published through an atomic lazy reference so that copies of the store read on
//   several threads can share it without a lock.
//
// Thread safety: the storage is only mutated when uniquely referenced (the store
// checks `isKnownUniquelyReferenced` before every mutation), so concurrent readers only
// ever race on the lazily built position map, which the atomic reference makes safe.

/// The position → slot map of a storage that has tombstones.
///
/// Positions below `base` (the first tombstone) are their own slot; position
/// `base + k` is in slot `slots[k]`, for the positions that existed when the map was built.
@usableFromInline
final class EntityStorePositionMap: Sendable {
    @usableFromInline let base: Int
    @usableFromInline let slots: [Int]

    @usableFromInline
    init(base: Int, slots: [Int]) {
        self.base = base
        self.slots = slots
    }
}

extension EntityStore {
    @usableFromInline
    final class Storage: @unchecked Sendable {
        /// The fields, behind a pointer: stored properties of a class get a run-time
        /// exclusivity check on every access (tens of nanoseconds each, several per
        /// mutation), accesses through a pointer do not. Every access goes through the
        /// computed properties below, none of which is held across another.
        @usableFromInline
        struct Fields {
            /// First: `hasEmptyPositionCache` reads it at offset 0.
            @usableFromInline var positionCache: ManagedAtomicLazyReference<EntityStorePositionMap>?
            @usableFromInline var slots: [Entity?]
            @usableFromInline var index: [ID: Int]
            @usableFromInline var stamps: [UInt32]
            @usableFromInline var firstTombstone: Int
            @usableFromInline var lastTombstone: Int
            @usableFromInline var compactionCount: Int
            @usableFromInline var compactionWork: Int
            /// The writer watching this storage (see `ReleaseWatch`); not copied.
            @usableFromInline var releaseWatch: ReleaseWatch?
            /// The other writers watching it (writers of the same store), usually none.
            @usableFromInline var otherReleaseWatches: [ReleaseWatch]?

            @inlinable
            init() {
                slots = []
                index = [:]
                stamps = []
                firstTombstone = .max
                lastTombstone = -1
                positionCache = nil
                compactionCount = 0
                compactionWork = 0
                releaseWatch = nil
                otherReleaseWatches = nil
            }
        }

        @usableFromInline let fields: UnsafeMutablePointer<Fields>

        /// The entities in order, with `nil` for a deleted entity (a tombstone).
        @inlinable var slots: [Entity?] {
            _read { yield fields.pointee.slots }
            _modify { yield &fields.pointee.slots }
        }
        /// Live id → slot.
        @inlinable var index: [ID: Int] {
            _read { yield fields.pointee.index }
            _modify { yield &fields.pointee.index }
        }
        /// Per slot, 1 + the index of the live entry of the entity's id in the store's
        /// change set, 0 for none (see `ChangeSet`): a hint that spares the change set a hash
        /// per record. May be shorter than `slots` (missing stamps are 0) or longer (stamps
        /// of popped slots, hints like any other). Moves with the entities when compacting.
        @inlinable var stamps: [UInt32] {
            _read { yield fields.pointee.stamps }
            _modify { yield &fields.pointee.stamps }
        }
        /// The lowest slot holding a tombstone, `Int.max` when there is none.
        @inlinable var firstTombstone: Int {
            get { fields.pointee.firstTombstone }
            set { fields.pointee.firstTombstone = newValue }
        }
        /// An upper bound of the highest slot holding a tombstone (exact unless trailing
        /// tombstones were popped since); meaningless when there is none.
        @inlinable var lastTombstone: Int {
            get { fields.pointee.lastTombstone }
            set { fields.pointee.lastTombstone = newValue }
        }
        /// Non-`nil` exactly when there are tombstones; replaced (never mutated) when the
        /// layout changes, so that a map already handed to a reader stays valid for it.
        @inlinable var positionCache: ManagedAtomicLazyReference<EntityStorePositionMap>? {
            get { fields.pointee.positionCache }
            set { fields.pointee.positionCache = newValue }
        }
        /// How many compactions this storage underwent, and how many slots they swept
        /// (carried over by copies), for tests.
        @inlinable var compactionCount: Int {
            get { fields.pointee.compactionCount }
            set { fields.pointee.compactionCount = newValue }
        }
        @inlinable var compactionWork: Int {
            get { fields.pointee.compactionWork }
            set { fields.pointee.compactionWork = newValue }
        }

        @inlinable
        init(minimumCapacity: Int = 0) {
            assert(MemoryLayout<Fields>.offset(of: \Fields.positionCache) == 0, "hasEmptyPositionCache reads offset 0")
            fields = .allocate(capacity: 1)
            fields.initialize(to: Fields())
            if minimumCapacity > 0 {
                fields.pointee.slots.reserveCapacity(minimumCapacity)
                fields.pointee.index.reserveCapacity(minimumCapacity)
            }
        }

        @inlinable
        deinit {
            // Every watch is told: each holds this storage unretained until then.
            if let watch = fields.pointee.releaseWatch {
                watch.released(ObjectIdentifier(self), slots: fields.pointee.slots)
            }
            if let others = fields.pointee.otherReleaseWatches {
                for watch in others { watch.released(ObjectIdentifier(self), slots: fields.pointee.slots) }
            }
            fields.deinitialize(count: 1)
            fields.deallocate()
        }

        /// A storage without tombstones holding `entities`, whose ids must be unique.
        @inlinable
        convenience init(uniqueEntities entities: [Entity]) {
            self.init(minimumCapacity: entities.count)
            for entity in entities { append(entity) }
        }

        /// An independent copy with the same layout (a copy-on-write copy).
        @inlinable
        func copy() -> Storage {
            let copy = Storage()
            copy.slots = slots
            copy.index = index
            copy.stamps = stamps
            copy.firstTombstone = firstTombstone
            copy.lastTombstone = lastTombstone
            copy.compactionCount = compactionCount
            copy.compactionWork = compactionWork
            if let positionCache {
                let cache = ManagedAtomicLazyReference<EntityStorePositionMap>()
                if let map = positionCache.load() { _ = cache.storeIfNilThenLoad(map) }
                copy.positionCache = cache
            }
            return copy
        }

        /// The number of live entities.
        @inlinable var count: Int { index.count }

        /// The number of tombstones.
        @inlinable var tombstoneCount: Int { slots.count - index.count }

        /// The live entity in `slot`.
        @inlinable
        func entity(inSlot slot: Int) -> Entity {
            slots[slot].unsafelyUnwrapped
        }

        /// The id of the live entity in `slot`, read in place.
        @inlinable
        func id(inSlot slot: Int) -> ID {
            slots[slot].unsafelyUnwrapped.id
        }

        /// `true` if `slot` holds an entity, `false` for a tombstone.
        @inlinable
        func isLive(_ slot: Int) -> Bool {
            Self.isLive(slots[slot])
        }

        /// `true` for an entity, `false` for a tombstone. A pattern, not `!= nil`: the
        /// comparison with `nil` builds and destroys a `nil` of the entity's type each time.
        @inlinable @inline(__always)
        static func isLive(_ slot: borrowing Entity?) -> Bool {
            if case .some = copy slot { return true }
            return false
        }

        /// The entity with `id`, if any.
        @inlinable
        func entity(forID id: ID) -> Entity? {
            guard let slot = index[id] else { return nil }
            return slots[slot].unsafelyUnwrapped
        }

        /// The entity with `id`, looked for in `slot` first (a hint, -1 for none).
        @inlinable
        func entity(forID id: ID, hint slot: Int) -> Entity? {
            if slot >= 0, slot < slots.count, let entity = slots[slot], entity.id == id { return entity }
            return entity(forID: id)
        }

        // MARK: Positions

        /// The slot of the live entity at `position` (0..<count, checked by the caller).
        ///
        /// O(1) without tombstones, when the tombstones form one run (a single delete, or
        /// deletes of neighbours), for a position before the first tombstone and for the
        /// last position; otherwise O(1) once the position map is built (O(n), once per layout).
        @inlinable
        func slot(forPosition position: Int) -> Int {
            if position < firstTombstone { return position }
            let live = index.count
            let tombstones = slots.count - live
            // `lastTombstone` bounds the tombstones from above: if the range from the first
            // to it has room for exactly `tombstones` slots, they fill it.
            if lastTombstone - firstTombstone + 1 == tombstones { return position + tombstones }
            if position == live - 1 { return slots.count - 1 }
            let map = positionMap()
            let offset = position - map.base
            if offset < map.slots.count { return map.slots[offset] }
            // Appended after the map was built: appends fill the last slots contiguously.
            return slots.count - (live - position)
        }

        /// `true` when a position cache is installed and no map was built in it yet. Read on
        /// every removal, without retaining the cache (a retain and a release of it cost more
        /// than the rest of the check): its reference is loaded from offset 0 of the fields.
        @inlinable
        var hasEmptyPositionCache: Bool {
            guard let raw = UnsafeRawPointer(fields).load(as: UnsafeRawPointer?.self) else { return false }
            return Unmanaged<ManagedAtomicLazyReference<EntityStorePositionMap>>.fromOpaque(raw)
                ._withUnsafeGuaranteedRef { $0.load() == nil }
        }

        /// The position map of the current layout, built on first use.
        @inlinable
        func positionMap() -> EntityStorePositionMap {
            guard let cache = positionCache else {
                // No tombstone: the identity map (not reached by `slot(forPosition:)`).
                return EntityStorePositionMap(base: slots.count, slots: [])
            }
            if let map = cache.load() { return map }
            return cache.storeIfNilThenLoad(buildPositionMap())
        }

        @inlinable
        func buildPositionMap() -> EntityStorePositionMap {
            let base = Swift.min(firstTombstone, slots.count)
            var map: [Int] = []
            map.reserveCapacity(index.count - base)
            for slot in base..<slots.count where isLive(slot) {
                map.append(slot)
            }
            return EntityStorePositionMap(base: base, slots: map)
        }

        /// The change-set stamp of `slot` (0: none).
        @inlinable
        func stamp(at slot: Int) -> UInt32 {
            slot < stamps.count ? stamps[slot] : 0
        }

        // MARK: Mutations (uniquely referenced storage only)

        /// Stamps `slot` with `stamp` if there is one (see `ChangeSet`).
        @inlinable
        func setStamp(_ stamp: UInt32?, at slot: Int) {
            guard let stamp else { return }
            stamps.setGrowing(stamp, at: slot)
        }

        /// Appends an entity whose id is not in the storage.
        @inlinable
        func append(_ entity: Entity) {
            index[entity.id] = slots.count
            slots.append(entity)
            // A built position map stays valid: appended positions are computed from the end.
        }

        /// Replaces the entity in `slot` (same id).
        @inlinable
        func replace(inSlot slot: Int, with entity: consuming Entity) {
            slots[slot] = entity
        }

        /// Inserts (appends) or replaces `entity`, hashing its id once when it is new.
        @inlinable
        func put(_ entity: Entity) {
            if let slot = index.updateValue(slots.count, forKey: entity.id) {
                index[entity.id] = slot
                slots[slot] = entity
            } else {
                slots.append(entity)
            }
        }

        /// The slot of `id`, hashing it once: a present id's slot, or, for a new id, the next
        /// slot (`slots.count`), already in the index: the caller must append the entity.
        @inlinable
        func claimSlot(for id: ID) -> (slot: Int, isNew: Bool) {
            let end = slots.count
            // A present id's slot is below `end`: `end` comes back only for a new id.
            let slot = index.value(forKey: id, insertingIfAbsent: end)
            return (slot, slot == end)
        }

        /// Makes a tombstone of `slot`, whose id was just removed from the index.
        @inlinable
        func clear(slot: Int) {
            slots[slot] = nil
            didRemove(lowestSlot: slot, highestSlot: slot)
        }

        /// Deletes the entity with `id`, which must be live, leaving a tombstone.
        @inlinable
        func remove(_ id: ID) {
            guard let slot = index.removeValue(forKey: id) else { return }
            slots[slot] = nil
            didRemove(lowestSlot: slot, highestSlot: slot)
        }

        /// Deletes the entity in `slot`, which must be live, without updating the layout
        /// bookkeeping; call `didRemove(lowestSlot:highestSlot:)` after a series of these.
        @inlinable
        func tombstone(slot: Int) {
            index.removeValue(forKey: id(inSlot: slot))
            slots[slot] = nil
        }
    }
}

extension EntityStore {
    /// Identity of the storage buffer: unchanged by in-place mutation, new after a copy.
    var storageIdentity: ObjectIdentifier { ObjectIdentifier(storage) }
}
