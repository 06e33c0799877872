import Foundation

/// The entities of an ``EntityStore`` grouped by a key (items by list, cards by column),
/// kept up to date from the store's log of changes: a read after a dispatch costs
/// O(changed entities), not a pass over all of them.
///
/// Declare it once, like a ``Derived`` value, from the key path of the entity store and the
/// function that gives an entity's key:
///
/// ```swift
/// extension AppState {
///     static let itemsByList = EntityIndex(\AppState.items) { $0.listID }
/// }
///
/// let inbox = AppState.itemsByList(state)[inbox.id] ?? []   // ids, in the store's order
/// let shown = store[AppState.itemsByList]                     // in a view: observes `items`
/// ```
///
/// A read returns every group as ids in the order of the entity store; a key no entity has
/// is absent. The first read builds the groups in one pass. A later read with a changed entity
/// store asks the store which ids changed since the last read (the same bounded log that
/// tells row observers what changed) and moves only those: an insertion, a deletion, a
/// change of an entity (also one that changes its key, moving it to another group) costs
/// O(1) hash lookups plus, for the groups it touches, a search and an array insertion or
/// removal. What the log cannot describe entry by entry is rebuilt in one pass: a reorder
/// (`sort`, `move`, a restored order), `removeAll()`, a replaced or hydrated store, more
/// changes than the log keeps (about a hundred ids), or a state the index did not follow
/// (read it after each dispatch, as a view does, to stay incremental).
///
/// The groups are correct whatever the history (a test checks them against a recomputation
/// after random edits); only the cost differs. An entity's key must depend on the entity
/// only. Unlike a ``Derived`` value, the index updates itself under a lock: reads from
/// several threads are safe and see one update at a time. Reading with two different states
/// in alternation rebuilds each time. The index keeps the groups of the last state read and,
/// once it has updated them, each entity's key (ids and keys, not the entities).
public final class EntityIndex<State, Entity: Identifiable & Equatable & Sendable, Key: Hashable & Sendable>:
    @unchecked Sendable where Entity.ID: Sendable {
    /// The type of the entities' ids.
    public typealias ID = Entity.ID

    // Inlinable (specialized where it is used): unspecialized, the dictionary and array
    // work of a rebuild of 100,000 entities costs several times more in generic lookups.
    @usableFromInline let path: KeyPath<State, EntityStore<Entity>>
    @usableFromInline let key: @Sendable (Entity) -> Key
    /// Guards the fields below (a lock over several fields that the inlinable update
    /// helpers read and write in place).
    @usableFromInline let lock = LockedValue(())
    /// The entity store's fingerprint at the last read; `nil` before the first.
    @usableFromInline var seen: ChangeFingerprint?
    /// Each entity's key, for the updates: built from the groups by the first update that
    /// inserts or deletes, not by a rebuild (the first frame does not pay for it). Until then
    /// a changed entity's group is found by a binary search of each group.
    @usableFromInline var keys: [ID: Key]?
    @usableFromInline var groups: [Key: [ID]] = [:]
    @usableFromInline var rebuilds = 0
    @usableFromInline var updates = 0

    /// Declares an index of the entity store at `path`, grouped by `key`.
    ///
    /// ```swift
    /// static let cardsByColumn = EntityIndex(\Board.cards) { $0.columnID }
    /// ```
    ///
    /// - Parameters:
    ///   - path: the entity store to index.
    ///   - key: the key of an entity (a function of the entity only).
    public init(_ path: KeyPath<State, EntityStore<Entity>>, by key: @escaping @Sendable (Entity) -> Key) {
        self.path = path
        self.key = key
    }

    /// The groups for `state`: for each key, the ids of its entities in the entity store's
    /// order. Brought up to date first, from the changes since the last read.
    ///
    /// ```swift
    /// let done = AppState.itemsByDone(state)[true]?.count ?? 0
    /// ```
    ///
    /// - Complexity: O(1) when the entity store did not change; O(changed entities) hash
    ///   lookups plus the array insertions and removals in the groups they touch after a
    ///   change the log describes; O(*n*) otherwise (see ``EntityIndex``).
    @inlinable
    public func callAsFunction(_ state: State) -> [Key: [ID]] {
        let store = state[keyPath: path]
        return lock.withLock { _ in
            let now = store.changeFingerprint
            guard now != seen else { return groups }
            if let seen, let changes = store._observationChanges.changes(since: seen, current: now),
               !changes.reorder, changes.ids.count <= Self.maxChanges(count: store.count) {
                update(changedIDs: changes.ids, membership: changes.membership, from: store)
                updates += 1
            } else {
                rebuild(from: store)
                rebuilds += 1
            }
            seen = now
            ChangeFingerprint.markSeen()
            return groups
        }
    }

    /// How many times the groups were rebuilt in one pass (the first read included), and
    /// how many times they were updated from the changes. For tests:
    ///
    /// ```swift
    /// state.items.modify(id) { $0.listID = other }
    /// _ = AppState.itemsByList(state)
    /// #expect(AppState.itemsByList.counts.rebuilds == 1)
    /// ```
    public var counts: (rebuilds: Int, updates: Int) {
        lock.withLock { _ in (rebuilds, updates) }
    }

    /// Forgets the groups; the next read rebuilds them.
    public func reset() {
        lock.withLock { _ in
            seen = nil
            keys = nil
            groups = [:]
        }
    }

    /// Beyond this many logged ids, one pass is cheaper than moving them one by one.
    @inlinable
    static func maxChanges(count: Int) -> Int { Swift.max(64, count / 16) }

    @inlinable
    func rebuild(from store: EntityStore<Entity>) {
        var groups: [Key: [ID]] = [:]
        // The groups of the last few keys met are filled outside the dictionary (entities of
        // a few keys often follow each other or alternate): no hashing per entity.
        var open: [(key: Key, ids: [ID])] = []
        for entity in store {
            let key = key(entity)
            if let index = open.firstIndex(where: { $0.key == key }) {
                open[index].ids.append(entity.id)
            } else {
                if open.count == 4 {
                    let closed = open.removeFirst()
                    groups[closed.key, default: []].append(contentsOf: closed.ids)
                }
                open.append((key, [entity.id]))
            }
        }
        for run in open { groups[run.key, default: []].append(contentsOf: run.ids) }
        self.keys = nil
        self.groups = groups
    }

    /// Moves the changed ids. Each leaves the group it was in when its key changed, when it
    /// is gone, or when membership changed (it may have been deleted and inserted again, at
    /// another place); it then goes to its group at its place in the store's order (the
    /// other entities kept their relative order: the steps reordered nothing).
    @inlinable
    func update(changedIDs: ArraySlice<ID>, membership: Bool, from store: EntityStore<Entity>) {
        if self.keys == nil, membership || changedIDs.contains(where: { store.storage.index[$0] == nil }) {
            self.keys = keysOfGroups()
        }
        var keys = self.keys
        self.keys = nil   // unique while updated
        defer { self.keys = keys }
        var leaving: [Key: [ID]] = [:]
        var arriving: [Key: [(id: ID, slot: Int)]] = [:]
        var done = Set<ID>(minimumCapacity: changedIDs.count)
        for id in changedIDs where done.insert(id).inserted {
            let slot = store.storage.index[id]
            // Without the map, the steps only changed values: every id is present and in place.
            let old = keys == nil ? slot.flatMap { key(of: id, inSlot: $0, in: store) } : keys![id]
            let new = slot.map { key(store.storage.entity(inSlot: $0)) }
            if old == new && (!membership || old == nil) { continue }
            if let old { leaving[old, default: []].append(id) }
            if let new, let slot {
                arriving[new, default: []].append((id, slot))
            }
            if keys != nil { keys![id] = new }
        }
        for (key, ids) in leaving {
            if ids.count == 1 {
                if let index = groups[key]?.lastIndex(of: ids[0]) { groups[key]!.remove(at: index) }
            } else {
                let gone = Set(ids)
                groups[key]?.removeAll { gone.contains($0) }
            }
            if groups[key]?.isEmpty == true { groups[key] = nil }
        }
        for (key, entries) in arriving {
            var group = groups.removeValue(forKey: key) ?? []
            for entry in entries.sorted(by: { $0.slot < $1.slot }) {
                // Slots grow with the position; a new entity usually goes last.
                if let last = group.last, store.storage.index[last]! > entry.slot {
                    let index = partitionPoint(group) { store.storage.index[$0]! > entry.slot }
                    group.insert(entry.id, at: index)
                } else {
                    group.append(entry.id)
                }
            }
            groups[key] = group
        }
    }

    /// The key of the group that holds `id` at its place (`slot`): a binary search of each
    /// group, whose ids are in slot order.
    @inlinable
    func key(of id: ID, inSlot slot: Int, in store: EntityStore<Entity>) -> Key? {
        for (key, group) in groups {
            let index = partitionPoint(group) { store.storage.index[$0]! >= slot }
            if index < group.count, group[index] == id { return key }
        }
        return nil
    }

    /// Each entity's key, from the groups.
    @inlinable
    func keysOfGroups() -> [ID: Key] {
        var keys: [ID: Key] = [:]
        keys.reserveCapacity(groups.values.reduce(0) { $0 + $1.count })
        for (key, ids) in groups { for id in ids { keys[id] = key } }
        return keys
    }

    /// The first index of `group` whose element satisfies `isAfter` (false, then true).
    @inlinable
    func partitionPoint(_ group: [ID], _ isAfter: (ID) -> Bool) -> Int {
        var low = 0, high = group.count
        while low < high {
            let middle = (low + high) / 2
            if isAfter(group[middle]) { high = middle } else { low = middle + 1 }
        }
        return low
    }
}
