extension Store {
    /// Reads a ``Derived`` value of this store's state; observes its inputs only.
    ///
    /// ```swift
    /// ForEach(store[AppState.visibleItems]) { item in ItemRow(item: item) }
    /// ```
    ///
    /// A view (or `withObservationTracking`) that read it is invalidated when one of the
    /// derived value's inputs changes, not by actions that changed none of them; the value
    /// itself is recomputed only then (see ``Derived``).
    public subscript<Value>(derived: Derived<State, Value>) -> Value {
        for input in derived.inputs { input.track(box) }
        return derived(box.untrackedState)
    }

    /// Reads an ``EntityIndex`` of this store's state (brought up to date); observes its
    /// entity store.
    ///
    /// ```swift
    /// ForEach(store[AppState.itemsByList][list.id] ?? [], id: \.self) { id in ItemRow(id: id) }
    /// ```
    public subscript<Entity, Key>(index: EntityIndex<State, Entity, Key>) -> [Key: [Entity.ID]] {
        box.track(index.path)
        return index(box.untrackedState)
    }
}
