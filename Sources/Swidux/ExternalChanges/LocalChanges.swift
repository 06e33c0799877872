/// The ids of one entity store that have a local change not yet flushed — recorded and not
/// drained, pending in its ``StateWriter``, or in the flush in flight — and whether its order
/// waits to be written. External changes leave these ids alone: the local value is written
/// later and wins, as the backend's commit order says.
@MainActor
struct LocalChanges<State, Entity: Identifiable & Equatable & Sendable> where Entity.ID: Sendable {
    typealias ID = Entity.ID
    private var boxes: [TypedStateWriterBox<State, Entity>] = []
    private var recorded: ChangeSet<ID>
    private var inFlightWrites: Set<ID> = []
    /// The store's own order is waiting to be written (or being written).
    private(set) var orderPending: Bool

    init(of keyPath: WritableKeyPath<State, EntityStore<Entity>>, in state: State, writers: [StateWriter<State>]) {
        recorded = state[keyPath: keyPath].changes
        recorded.indexAll()
        orderPending = recorded.orderChanged
        for writer in writers {
            guard let box = writer.box as? TypedStateWriterBox<State, Entity>, box.keyPath == keyPath else { continue }
            boxes.append(box)
            if box.pendingOrder != nil || box.inFlight?.order != nil { orderPending = true }
            if let batch = box.inFlight { for entity in batch.writes { inFlightWrites.insert(entity.id) } }
        }
    }

    /// `true` when `id` has a change that is not flushed yet.
    func contains(_ id: ID) -> Bool {
        if recorded.isUpserted(id) || recorded.isDeleted(id) || inFlightWrites.contains(id) { return true }
        for box in boxes where box.pendingWrites[id] != nil || box.pendingDeletions[id] != nil || box.inFlightDeletions.contains(id) {
            return true
        }
        return false
    }
}
