extension EntityStore {
    /// The entity with `id`, by id whatever the id type: reads, inserts, replaces or (with
    /// `nil`) deletes, exactly as the unlabelled `store[id]`.
    ///
    /// ```swift
    /// items[id: 42] = item           // insert or replace the entity whose id is 42
    /// let found = items[id: 42]      // Entity?: never a position
    /// items[id: 42] = nil            // delete
    /// ```
    ///
    /// With `Int` ids prefer this spelling: `items[id: 0]` cannot be read as "the first
    /// entity". (`items[0]` also means the id there; see ``subscript(position:)``.)
    ///
    /// - Complexity: as the unlabelled `store[id]`.
    @inlinable
    public subscript(id id: ID) -> Entity? {
        get { self[id] }
        set { self[id] = newValue }
    }

    /// The entity at `position` (`0..<count`), in order: never a lookup by id.
    ///
    /// ```swift
    /// let first = items[position: 0]
    /// for position in items.indices { print(items[position: position].title) }
    /// ```
    ///
    /// - Complexity: as the positional subscript of the collection.
    @inlinable
    public subscript(position position: Int) -> Entity {
        let entity: Entity = self[position]
        return entity
    }
}

extension EntityStore where ID == Int {
    /// With `Int` ids, the unlabelled `store[x]` means the lookup by id (`Entity?`). Where
    /// only an `Entity` fits (`store[x].title`, `store[x] as Entity`), it used to fall back to
    /// the position: that fallback is deprecated. Write `store[position: x]` for a position,
    /// `store[id: x]` for an id.
    ///
    /// ```swift
    /// let byID = items[7]                 // Entity?: the entity whose id is 7
    /// let first = items[position: 0]      // Entity: the first entity
    /// ```
    @available(*, deprecated, message: "with Int ids, store[x] is the lookup by id; write store[position: x] for a position, store[id: x] for an id")
    @_disfavoredOverload
    @inlinable
    public subscript(_ position: Int) -> Entity {
        self[position: position]
    }
}
