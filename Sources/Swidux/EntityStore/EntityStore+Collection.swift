extension EntityStore: RandomAccessCollection {
    /// A position among the entities: `0..<count`, in order.
    public typealias Index = Int
    /// The positions of the entities: `0..<count`.
    public typealias Indices = Range<Int>

    /// Iterates over the entities in order.
    public struct Iterator: IteratorProtocol {
        @usableFromInline let slots: [Entity?]
        @usableFromInline var slot: Int

        @inlinable
        init(slots: [Entity?]) {
            self.slots = slots
            self.slot = 0
        }

        /// The next entity, or `nil` at the end.
        ///
        /// - Complexity: Amortized O(1).
        @inlinable
        public mutating func next() -> Entity? {
            while slot < slots.count {
                defer { slot += 1 }
                if let entity = slots[slot] { return entity }
            }
            return nil
        }
    }

    /// An iterator over the entities in order.
    ///
    /// ```swift
    /// for item in items { print(item.title) }
    /// ```
    ///
    /// - Complexity: O(1); a complete iteration is O(*n*).
    @inlinable
    public func makeIterator() -> Iterator { Iterator(slots: storage.slots) }

    /// The position of the first entity: always 0.
    ///
    /// - Complexity: O(1).
    @inlinable
    public var startIndex: Int { 0 }

    /// The position after the last entity: ``count``.
    ///
    /// - Complexity: O(1).
    @inlinable
    public var endIndex: Int { storage.count }

    /// The positions of the entities: `0..<count`.
    ///
    /// - Complexity: O(1).
    @inlinable
    public var indices: Range<Int> { 0..<storage.count }

    /// The entity at `position` (`0..<count`), in order.
    ///
    /// ```swift
    /// let first = items[0]
    /// ForEach(items) { item in Text(item.title) }
    /// ```
    ///
    /// - Complexity: O(1) when no entity was deleted since the last compaction, and for
    ///   the first and last positions; otherwise amortized O(1): the first positional
    ///   access after a deletion builds a position map in O(*n*), shared by every later
    ///   access (and every copy) until the next deletion.
    ///
    /// - Note: With `Int` ids, `store[x]` is the lookup by id (`Entity?`); write
    ///   `store[position: x]` for a position and `store[id: x]` for an id.
    @inlinable
    @_disfavoredOverload
    public subscript(position: Int) -> Entity {
        precondition(position >= 0 && position < storage.count, "EntityStore: position \(position) out of range 0..<\(storage.count)")
        return storage.entity(inSlot: storage.slot(forPosition: position))
    }

    /// The number of entities.
    ///
    /// - Complexity: O(1).
    @inlinable
    public var underestimatedCount: Int { storage.count }
}

extension EntityStore: Equatable {
    /// Equal when they hold the same entities in the same order; the change log is ignored.
    ///
    /// - Complexity: O(1) when both share a fingerprint or a storage (one is an unchanged
    ///   copy of the other); otherwise O(*n*).
    @inlinable
    public static func == (lhs: EntityStore, rhs: EntityStore) -> Bool {
        if lhs._changeFingerprint == rhs._changeFingerprint || lhs.storage === rhs.storage { return true }
        guard lhs.count == rhs.count else { return false }
        return lhs.elementsEqual(rhs)
    }
}

extension EntityStore: Hashable where Entity: Hashable {
    /// Hashes the entities in order; the change log is ignored.
    ///
    /// - Complexity: O(*n*).
    @inlinable
    public func hash(into hasher: inout Hasher) {
        hasher.combine(count)
        for entity in self { hasher.combine(entity) }
    }
}

extension EntityStore: ExpressibleByArrayLiteral {
    /// Hydration from a literal: records nothing. A repeated id keeps its first place and
    /// its last value.
    ///
    /// ```swift
    /// let items: EntityStore<Item> = [milk, eggs]
    /// ```
    ///
    /// - Complexity: O(*n*).
    @inlinable
    public init(arrayLiteral elements: Entity...) { self.init(elements) }
}

extension EntityStore: CustomStringConvertible, CustomDebugStringConvertible {
    /// The entities in order: `EntityStore([…])`.
    ///
    /// - Complexity: O(*n*).
    public var description: String { "EntityStore(\(values))" }

    /// The entity type, the count and the number of recorded changes.
    ///
    /// - Complexity: O(1).
    public var debugDescription: String { "EntityStore<\(Entity.self)>(count: \(count), changes: \(changes.count))" }
}
