/// An ``EntityStore`` slice read through a ``Store``: a read-only view that observes each
/// read at the grain it names.
///
/// `store.items`, where `items` is an `EntityStore`, gives this view. What an observer
/// (a SwiftUI view, `withObservationTracking`) is then notified of depends on what it read:
///
/// | Read | Notified when |
/// |---|---|
/// | `store.items[id]` | that entity is inserted, changed or deleted |
/// | `store.items[position: i]` | that entity changes, or membership or order changes |
/// | `ids`, `count`, `isEmpty`, `contains(_:)`, `indices` | an entity is inserted or deleted, or the order changes |
/// | `values`, iteration (`for`, `map`, `filter`, …), `entityStore`, other properties | anything in the slice changes |
///
/// ```swift
/// List {
///     ForEach(store.items.ids, id: \.self) { id in
///         ItemRow(item: store.items[id])   // re-rendered only when this item changes
///     }
/// }
/// ```
///
/// Changing one entity of a 10,000-row list then re-renders one row, and the cost of a
/// dispatch does not grow with the number of rows read (see the README's benchmarks).
///
/// `store.items` by itself observes nothing: the members read from it do. Like
/// `withObservationTracking`, a read stays observed until it is notified once; the
/// observers to notify are found through the entity store's log of the ids each dispatch
/// changed. A change the log cannot describe entry by entry (the entity store replaced by
/// another value, e.g. hydration or the undo of a slice that is not persisted,
/// `removeAll()`, a `merge` into an empty store) notifies every reader of the slice: an
/// extra notification, never a missed one.
///
/// The view holds the entity store as it was when read (a copy-on-write copy, O(1)). Where
/// an `EntityStore` is expected, `store.items` gives the entity store itself (observing the
/// whole slice), e.g. `let items: EntityStore<Item> = store.items`, or use ``entityStore``.
@dynamicMemberLookup
public struct ObservedEntities<Entity: Identifiable & Equatable & Sendable> where Entity.ID: Sendable {
    /// The type of the entities' ids.
    public typealias ID = Entity.ID

    @usableFromInline let base: EntityStore<Entity>
    let observer: EntityReadObserver<Entity>?

    init(_ base: EntityStore<Entity>, observer: EntityReadObserver<Entity>?) {
        self.base = base
        self.observer = observer
    }

    /// Reports a read to the store; the view is only ever made and used on the main actor.
    private func observe(_ report: @MainActor (EntityReadObserver<Entity>) -> Void) {
        guard let observer else { return }
        MainActor.assumeIsolated { report(observer) }
    }

    /// The entity with `id`, if any; observes that entity only (insertion, change, deletion).
    ///
    /// ```swift
    /// Text(store.items[id]?.title ?? "")
    /// ```
    ///
    /// - Complexity: O(1) on average.
    public subscript(id: ID) -> Entity? {
        observe { $0.row(id) }
        return base[id]
    }

    /// The entity with `id`, by id whatever the id type; observes that entity only. The
    /// same as the unlabelled `store.items[id]`; prefer it with `Int` ids, where
    /// `store.items[id: 0]` cannot be read as "the first entity".
    ///
    /// ```swift
    /// ForEach(store.counters.ids, id: \.self) { id in CounterRow(counter: store.counters[id: id]) }
    /// ```
    ///
    /// - Complexity: O(1) on average.
    public subscript(id id: ID) -> Entity? {
        self[id]
    }

    /// The entity at `position` (`0..<count`), never a lookup by id; observes membership,
    /// order and that entity.
    ///
    /// ```swift
    /// if !store.items.isEmpty { Text(store.items[position: 0].title) }
    /// ```
    ///
    /// - Complexity: as ``EntityStore``'s positional subscript.
    public subscript(position position: Int) -> Entity {
        let entity: Entity = self[position]
        return entity
    }

    /// The ids in order; observes membership and order only.
    ///
    /// ```swift
    /// ForEach(store.items.ids, id: \.self) { id in ItemRow(item: store.items[id]) }
    /// ```
    ///
    /// - Complexity: O(*n*).
    public var ids: [ID] {
        observe { $0.membership() }
        return base.ids
    }

    /// The number of entities; observes membership only.
    ///
    /// - Complexity: O(1).
    public var count: Int {
        observe { $0.membership() }
        return base.count
    }

    /// `true` when there is no entity; observes membership only.
    ///
    /// - Complexity: O(1).
    public var isEmpty: Bool {
        observe { $0.membership() }
        return base.isEmpty
    }

    /// `true` if an entity has the id `id`; observes membership only.
    ///
    /// ```swift
    /// if store.items.contains(id) { … }
    /// ```
    ///
    /// - Complexity: O(1) on average.
    public func contains(_ id: ID) -> Bool {
        observe { $0.membership() }
        return base.contains(id)
    }

    /// The entities in order; observes the whole slice.
    ///
    /// - Complexity: O(*n*).
    public var values: [Entity] {
        observe { $0.whole() }
        return base.values
    }

    /// The entity store itself; observes the whole slice.
    ///
    /// ```swift
    /// let snapshot = store.items.entityStore
    /// ```
    ///
    /// - Complexity: O(1).
    public var entityStore: EntityStore<Entity> {
        observe { $0.whole() }
        return base
    }

    /// Any other property of the entity store (`changes`, `changeFingerprint`, …); observes
    /// the whole slice.
    public subscript<Value>(dynamicMember keyPath: KeyPath<EntityStore<Entity>, Value>) -> Value {
        observe { $0.whole() }
        return base[keyPath: keyPath]
    }
}

@available(*, unavailable, message: "read entity stores on the main actor, through the store")
extension ObservedEntities: Sendable {}

extension ObservedEntities: RandomAccessCollection {
    /// A position among the entities: `0..<count`, in order.
    public typealias Index = Int
    /// The positions of the entities: `0..<count`.
    public typealias Indices = Range<Int>

    /// An iterator over the entities in order; iterating observes the whole slice.
    ///
    /// ```swift
    /// for item in store.items { print(item.title) }
    /// ```
    public func makeIterator() -> EntityStore<Entity>.Iterator {
        observe { $0.whole() }
        return base.makeIterator()
    }

    /// Always 0.
    public var startIndex: Int { 0 }

    /// ``count``; observes membership only.
    public var endIndex: Int { count }

    /// `0..<count`; observes membership only.
    public var indices: Range<Int> { 0..<count }

    /// The entity at `position` (`0..<count`); observes membership, order and that entity.
    ///
    /// With `Int` ids, `store.items[x]` is the lookup by id; write `store.items[position: x]`
    /// for a position (as with ``EntityStore``).
    ///
    /// - Complexity: as ``EntityStore``'s positional subscript.
    @_disfavoredOverload
    public subscript(position: Int) -> Entity {
        let entity: Entity = base[position]
        observe { observer in
            observer.membership()
            observer.row(entity.id)
        }
        return entity
    }

    /// The number of entities, without observing anything (a hint for `map` and friends,
    /// which then iterate and observe the whole slice).
    public var underestimatedCount: Int { base.count }
}

extension ObservedEntities where ID == Int {
    /// With `Int` ids, the unlabelled `store.items[x]` means the lookup by id (`Entity?`).
    /// Where only an `Entity` fits it used to fall back to the position: that fallback is
    /// deprecated. Write `store.items[position: x]` for a position, `store.items[id: x]`
    /// for an id.
    ///
    /// ```swift
    /// let first = store.items[position: 0]
    /// ```
    @available(*, deprecated, message: "with Int ids, store.items[x] is the lookup by id; write store.items[position: x] for a position, store.items[id: x] for an id")
    @_disfavoredOverload
    public subscript(_ position: Int) -> Entity {
        self[position: position]
    }
}
