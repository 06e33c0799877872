import Foundation

// NOTE: provisional storage (re-indexes on delete). The public API is final;
// the amortized O(1) storage replaces the internals.

/// An ordered, keyed collection of entities that records every change it undergoes.
///
/// ```swift
/// var cards = EntityStore<Card>()
/// cards[card.id] = card                          // insert or update, recorded
/// cards.modify(card.id) { $0.title = "New" }     // in place, recorded if it changed
/// cards[card.id] = nil                           // delete, recorded
/// let all = cards.values                         // insertion order
/// cards = EntityStore(arrayFromDB)               // hydration: records nothing
/// ```
public struct EntityStore<Entity: Identifiable & Equatable & Sendable>: Sendable where Entity.ID: Sendable {
    public typealias ID = Entity.ID

    @usableFromInline var storage: [Entity] = []
    @usableFromInline var positions: [ID: Int] = [:]
    /// What changed since the last drain.
    public private(set) var changes = ChangeSet<ID>()
    public private(set) var changeFingerprint = ChangeFingerprint.next()

    /// An empty store.
    public init() {}

    /// Hydration: the entities in order, recording nothing. A repeated id keeps its first place and its last value.
    public init(_ entities: some Sequence<Entity>) {
        for entity in entities { put(entity) }
    }

    public var count: Int { storage.count }
    public var isEmpty: Bool { storage.isEmpty }
    /// The entities in order.
    public var values: [Entity] { storage }
    /// The ids in order.
    public var ids: [ID] { storage.map(\.id) }

    public func contains(_ id: ID) -> Bool { positions[id] != nil }

    /// Reads, inserts (appends), replaces or (with `nil`) deletes the entity with `id`. Recorded.
    public subscript(id: ID) -> Entity? {
        get { positions[id].map { storage[$0] } }
        set {
            if let newValue {
                precondition(newValue.id == id, "EntityStore: the entity's id \(newValue.id) differs from the subscript id \(id)")
                if let position = positions[id] {
                    guard storage[position] != newValue else { return }
                    storage[position] = newValue
                } else {
                    put(newValue)
                }
                changes.recordUpsert(id)
                changeFingerprint = .next()
            } else {
                guard let position = positions.removeValue(forKey: id) else { return }
                storage.remove(at: position)
                for i in position..<storage.count { positions[storage[i].id] = i }
                changes.recordDeletion(id)
                changeFingerprint = .next()
            }
        }
    }

    /// Mutates the entity with `id` in place; records the change only if the value changed.
    /// - Returns: `false` if there is no entity with that id.
    @discardableResult
    public mutating func modify(_ id: ID, _ body: (inout Entity) throws -> Void) rethrows -> Bool {
        guard let position = positions[id] else { return false }
        var value = storage[position]
        try body(&value)
        precondition(value.id == id, "EntityStore.modify must not change the entity's id")
        guard value != storage[position] else { return true }
        storage[position] = value
        changes.recordUpsert(id)
        changeFingerprint = .next()
        return true
    }

    /// Sorts the entities; records a reorder.
    public mutating func sort(by areInIncreasingOrder: (Entity, Entity) throws -> Bool) rethrows {
        let before = ids
        try storage.sort(by: areInIncreasingOrder)
        reindex()
        if ids != before { changes.recordReorder(); changeFingerprint = .next() }
    }

    /// Removes the entities that match; records each deletion.
    public mutating func removeAll(where shouldBeRemoved: (Entity) throws -> Bool) rethrows {
        var removed: [ID] = []
        try storage.removeAll { entity in
            let remove = try shouldBeRemoved(entity)
            if remove { removed.append(entity.id) }
            return remove
        }
        guard !removed.isEmpty else { return }
        reindex()
        for id in removed { changes.recordDeletion(id) }
        changeFingerprint = .next()
    }

    /// Removes every entity; records each deletion.
    public mutating func removeAll() { removeAll { _ in true } }

    /// Moves the entities at `offsets` to `destination` (SwiftUI `onMove` semantics); records a reorder.
    public mutating func move(fromOffsets offsets: IndexSet, toOffset destination: Int) {
        let moving = offsets.map { storage[$0] }
        var rest: [Entity] = []
        var insertAt = 0
        for (i, e) in storage.enumerated() where !offsets.contains(i) {
            if i < destination { insertAt += 1 }
            rest.append(e)
        }
        let before = ids
        rest.insert(contentsOf: moving, at: insertAt)
        storage = rest
        reindex()
        if ids != before { changes.recordReorder(); changeFingerprint = .next() }
    }

    /// Re-hydration: folds `other` in without recording anything. For an id in both,
    /// `preferExisting(otherValue, selfValue)` returning `true` keeps `other`'s value.
    /// Entities only in `other` are appended.
    public mutating func merge(from other: EntityStore, preferExisting: (Entity, Entity) throws -> Bool) rethrows {
        var changed = false
        for entity in other.storage {
            if let position = positions[entity.id] {
                if try preferExisting(entity, storage[position]), storage[position] != entity {
                    storage[position] = entity; changed = true
                }
            } else {
                put(entity); changed = true
            }
        }
        if changed { changeFingerprint = .next() }
    }

    /// Makes this store equal to `other` (values and order), recording exactly the differences.
    public mutating func restore(from other: EntityStore) {
        let before = ids
        var changed = false
        for entity in storage where other.positions[entity.id] == nil {
            changes.recordDeletion(entity.id); changed = true
        }
        for entity in other.storage {
            if let position = positions[entity.id], storage[position] == entity { continue }
            changes.recordUpsert(entity.id); changed = true
        }
        storage = other.storage
        positions = other.positions
        let orderChanged = before.filter { other.positions[$0] != nil } != other.storage.map(\.id).filter { positions[$0] != nil && before.contains($0) }
        if orderChanged { changes.recordReorder(); changed = true }
        if changed { changeFingerprint = .next() }
    }

    /// Forgets the recorded changes.
    public mutating func resetChanges() { changes.removeAll() }

    /// Returns the recorded changes and forgets them.
    public mutating func drainChanges() -> ChangeSet<ID> {
        let drained = changes
        changes.removeAll()
        return drained
    }

    private mutating func put(_ entity: Entity) {
        if let position = positions[entity.id] {
            storage[position] = entity
        } else {
            positions[entity.id] = storage.count
            storage.append(entity)
        }
    }

    private mutating func reindex() {
        positions.removeAll(keepingCapacity: true)
        for (i, e) in storage.enumerated() { positions[e.id] = i }
    }
}

extension EntityStore: ChangeFingerprinting {}

extension EntityStore: Equatable {
    /// Equal when they hold the same entities in the same order; the change log is ignored.
    public static func == (lhs: EntityStore, rhs: EntityStore) -> Bool {
        lhs.changeFingerprint == rhs.changeFingerprint || lhs.storage == rhs.storage
    }
}

extension EntityStore: RandomAccessCollection {
    public typealias Index = Int
    public var startIndex: Int { 0 }
    public var endIndex: Int { storage.count }
    public subscript(position: Int) -> Entity { storage[position] }
}

extension EntityStore: ExpressibleByArrayLiteral {
    public init(arrayLiteral elements: Entity...) { self.init(elements) }
}

extension EntityStore: CustomStringConvertible, CustomDebugStringConvertible {
    public var description: String { "EntityStore(\(storage))" }
    public var debugDescription: String { "EntityStore<\(Entity.self)>(count: \(count), changes: \(changes.count))" }
}
