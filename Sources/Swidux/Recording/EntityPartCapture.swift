/// What changed in an entity store since the last capture: what a ``SessionRecorder`` takes
/// on the main actor after each step, for its writer to hash.
///
/// ``capture(_:seen:)`` is inlinable, like the closure ``StateFingerprint/entities(_:named:)``
/// makes around it: it runs specialized for the app's entity type. It costs O(changed): the
/// changed ids come from the store's change log, each is looked up once.
@usableFromInline
struct EntityPartCapture<Entity: Identifiable & Equatable & Sendable>: Sendable where Entity.ID: Sendable {
    /// A changed entity the store holds, with the id before it in the store's order.
    @usableFromInline
    struct Present: Sendable {
        @usableFromInline var entity: Entity
        @usableFromInline var predecessor: Entity.ID?

        @inlinable
        init(entity: Entity, predecessor: Entity.ID?) {
            self.entity = entity
            self.predecessor = predecessor
        }
    }

    /// The whole store, when the change log could not name what changed (or at the start).
    @usableFromInline var all: EntityStore<Entity>?
    /// Changed ids the store no longer holds.
    @usableFromInline var removed: [Entity.ID] = []
    /// Changed entities the store holds, in the store's order.
    @usableFromInline var present: [Present] = []
    /// All ids in order, when the change reordered entities it did not log (a move, a sort):
    /// the order is relinked from the ids' cached hashes, no entity is hashed again.
    @usableFromInline var order: [Entity.ID]?

    @inlinable
    init(all: EntityStore<Entity>? = nil) {
        self.all = all
    }

    /// What changed in `store` since the fingerprint `seen` (then set to the current one);
    /// `nil` when nothing did. The whole store when the log cannot tell (or `seen` is `nil`).
    @inlinable
    static func capture(_ store: EntityStore<Entity>, seen: inout ChangeFingerprint?) -> EntityPartCapture? {
        let current = store._changeFingerprint
        guard current != seen else { return nil }
        let previous = seen
        seen = current
        // The next change starts a new step of the log, which the next capture finds.
        ChangeFingerprint.markSeen()
        guard let previous, let logged = store._observationLog.changes(since: previous, current: current)
        else { return EntityPartCapture(all: store) }
        var capture = EntityPartCapture()
        // Each read once, and each entity copied once (a copy of an entity retains its fields).
        let index = store.storage.index, entities = store.storage.slots
        // Changed entities, each once (a step logs an id per mutation), with their slots.
        var changed: [(slot: Int, entity: Entity)] = []
        changed.reserveCapacity(logged.ids.count)
        var seenIDs = Set<Entity.ID>()
        let ids = logged.ids
        for position in ids.indices {
            let id = ids[position]
            // One or two ids (the usual step) need no set to tell repeats.
            if ids.count > 2 {
                guard seenIDs.insert(id).inserted else { continue }
            } else if position != ids.startIndex, id == ids[ids.startIndex] {
                continue
            }
            if let slot = index[id], let entity = entities[slot] {
                changed.append((slot, entity))
            } else {
                capture.removed.append(id)
            }
        }
        if changed.count > 1 { changed.sort { $0.slot < $1.slot } }
        capture.present.reserveCapacity(changed.count)
        if logged.reorder {
            for (_, entity) in changed { capture.present.append(Present(entity: entity, predecessor: nil)) }
            capture.order = store.ids
            return capture
        }
        for (slot, entity) in changed {
            var predecessor: Entity.ID?
            var before = slot - 1
            while before >= 0 {
                if let previous = entities[before] {
                    predecessor = previous.id
                    break
                }
                before -= 1
            }
            capture.present.append(Present(entity: entity, predecessor: predecessor))
        }
        return capture
    }
}
