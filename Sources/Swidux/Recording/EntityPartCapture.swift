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

    /// The rare cases' data (the whole store, or the order), in a box of their own: the
    /// capture then fits in an existential's inline buffer (three words), so queueing it
    /// allocates nothing for it.
    @usableFromInline
    final class Rare: Sendable {
        @usableFromInline let all: EntityStore<Entity>?
        @usableFromInline let order: [Entity.ID]?

        @inlinable
        init(all: EntityStore<Entity>?, order: [Entity.ID]?) {
            self.all = all
            self.order = order
        }
    }

    @usableFromInline var rare: Rare?
    /// Changed ids the store no longer holds.
    @usableFromInline var removed: [Entity.ID] = []
    /// Changed entities the store holds, in the store's order.
    @usableFromInline var present: [Present] = []

    /// The whole store, when the change log could not name what changed (or at the start).
    @inlinable var all: EntityStore<Entity>? { rare?.all }
    /// All ids in order, when the change reordered entities it did not log (a move, a sort):
    /// the order is relinked from the ids' cached hashes, no entity is hashed again.
    @inlinable var order: [Entity.ID]? { rare?.order }

    @inlinable
    init(all: EntityStore<Entity>? = nil) {
        self.rare = all.map { Rare(all: $0, order: nil) }
    }

    /// What changed in the store at `pointer` since the fingerprint `seen` (then set to the
    /// current one); `nil` when nothing did. The whole store when the log cannot tell (or
    /// `seen` is `nil`). The store is read in place: copying it retains each of its fields.
    @inlinable
    static func capture(_ pointer: UnsafePointer<EntityStore<Entity>>, seen: inout ChangeFingerprint?) -> EntityPartCapture? {
        let current = pointer.pointee._changeFingerprint
        guard current != seen else { return nil }
        let previous = seen
        seen = current
        // The next change starts a new step of the log, which the next capture finds.
        ChangeFingerprint.markSeen()
        guard let previous, let logged = pointer.pointee._observationLog.changes(since: previous, current: current)
        else { return EntityPartCapture(all: pointer.pointee) }
        var capture = EntityPartCapture()
        // Each read once, and each entity copied once (a copy of an entity retains its fields).
        let storage = pointer.pointee.storage
        let index = storage.index, entities = storage.slots
        let ids = logged.ids
        if !logged.reorder, ids.count <= 2 {
            // The usual step (one or two ids): no temporary array, no set, no sort.
            var firstSlot: Int?
            for position in ids.indices {
                let id = ids[position]
                if position != ids.startIndex, id == ids[ids.startIndex] { continue }
                guard let slot = index[id], let entity = entities[slot] else {
                    capture.removed.append(id)
                    continue
                }
                let present = Present(entity: entity, predecessor: predecessor(of: slot, in: entities))
                if let first = firstSlot, slot < first {
                    capture.present.insert(present, at: 0)
                } else {
                    capture.present.append(present)
                }
                firstSlot = firstSlot ?? slot
            }
            return capture
        }
        // Changed entities, each once (a step logs an id per mutation), with their slots.
        var changed: [(slot: Int, entity: Entity)] = []
        changed.reserveCapacity(ids.count)
        var seenIDs = Set<Entity.ID>()
        for id in ids where seenIDs.insert(id).inserted {
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
            capture.rare = Rare(all: nil, order: pointer.pointee.ids)
            return capture
        }
        for (slot, entity) in changed {
            capture.present.append(Present(entity: entity, predecessor: predecessor(of: slot, in: entities)))
        }
        return capture
    }

    /// The id of the entity before `slot` in the store's order (`nil` for the first).
    @inlinable
    static func predecessor(of slot: Int, in entities: [Entity?]) -> Entity.ID? {
        var before = slot - 1
        while before >= 0 {
            if let previous = entities[before] { return previous.id }
            before -= 1
        }
        return nil
    }
}
