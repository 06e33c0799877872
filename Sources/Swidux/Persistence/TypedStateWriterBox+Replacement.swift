import Logging

extension TypedStateWriterBox {
    /// Drains a store that is not the continuation of the one drained last — the app
    /// assigned an older copy (`backup = state.items; …; state.items = backup`) or another
    /// store over it — by recording the difference between the two: the ids only the old
    /// one had are deleted, the entities only the new one has are written (an insertion,
    /// or an update when the backend holds the row: see ``recordWrite(_:insertion:slot:reclassify:)``),
    /// those that differ are updated, and the order is written if it differs.
    ///
    /// The old store is the storage drained last: still held elsewhere (an undo step, a
    /// copy), or handed over by its release (``EntityStore/ReleaseWatch``). Should neither be
    /// available, every entity of the new store is written, and the ids it lacks cannot be
    /// deleted: that is logged as an error.
    @usableFromInline
    nonisolated func drainReplacement(store: inout EntityStore<Entity>) -> Bool {
        if drainMark == 0 {
            // Never drained: the store the writer starts from (hydrated, or the initial state).
            return adopt(&store)
        }
        let previous: [Entity?]?
        switch releaseWatch.watchedContents(current: store.storage) {
        case .same: return adopt(&store)   // the very storage drained last: the same contents
        case .slots(let slots): previous = slots
        case .gone: previous = nil
        }
        var orderDirty = pendingOrder != nil || inFlight?.order != nil
        if let previous {
            var old: [ID: Entity] = [:]
            old.reserveCapacity(previous.count)
            var oldOrder: [ID] = []
            oldOrder.reserveCapacity(previous.count)
            for case let entity? in previous {
                old[entity.id] = entity
                oldOrder.append(entity.id)
            }
            for id in oldOrder where !store.contains(id) { recordDeletion(id) }
            for entity in store {
                if let before = old[entity.id] {
                    if before != entity { recordWrite(entity, insertion: false) }
                } else {
                    recordWrite(entity, insertion: true)
                }
            }
            if !orderDirty { orderDirty = store.ids != oldOrder }
        } else {
            Logger(label: "swidux.persistence").error(
                "Swidux persistence: an EntityStore of \(Entity.self) was assigned over the one the writer drained, which is gone: every entity of the new store is written, but the rows it lacks stay in the backend")
            for entity in store { recordWrite(entity, insertion: true) }
            orderDirty = true
        }
        if orderDirty { pendingOrder = store.ids }
        store._changes.removeAllAfterDrain()
        stamp(&store)
        return true
    }

    /// Takes `store` as it is, draining its journal as usual.
    private nonisolated func adopt(_ store: inout EntityStore<Entity>) -> Bool {
        store._drainMark = drainMark
        if drain(store: &store) { return true }
        stamp(&store)
        return false
    }

    /// Watches `storage`: its release hands its entities to ``drainReplacement(store:)``.
    @usableFromInline
    nonisolated func watch(_ storage: EntityStore<Entity>.Storage) {
        releaseWatch.watch(storage)
    }
}
