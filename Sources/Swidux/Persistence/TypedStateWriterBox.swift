import Foundation

/// One writer's pending work, typed: the drain of its entity store's change log, the
/// pending writes, deletions and order, the batch in flight, and what a flush's result
/// teaches the store (see ``StateWriter``).
@MainActor
@usableFromInline
final class TypedStateWriterBox<State, Entity: Identifiable & Equatable & Sendable>: StateWriterBox where Entity.ID: Sendable {
    @usableFromInline typealias ID = Entity.ID

    enum Sink {
        case direct(@Sendable (WriteBatch<Entity>) async throws -> WriteResult<ID>)
        case atomic(AtomicGroup, (WriteBatch<Entity>) -> @Sendable (Any) throws -> any Sendable)
    }

    let keyPath: WritableKeyPath<State, EntityStore<Entity>>
    let sink: Sink
    /// The pending work, behind a pointer: stored properties of a class get a run-time
    /// exclusivity check on every access, and the drain (after every reduce) makes a dozen.
    /// Every access goes through the computed properties below, none held across another.
    @usableFromInline
    struct Fields {
        @usableFromInline var pendingWrites = PendingWrites<Entity>()
        @usableFromInline var pendingDeletions: [ID: UInt64] = [:]
        @usableFromInline var pendingOrder: [ID]?
        @usableFromInline var sequence: UInt64 = 0
        @usableFromInline var inFlight: WriteBatch<Entity>?
        @usableFromInline var inFlightDeletions: Set<ID> = []
        /// Pending deletions of entities the backend never held (their pending write was an
        /// insertion): added back, they are insertions again (see ``recordWrite``).
        @usableFromInline var unheldDeletions: Set<ID> = []
        /// `unheldDeletions` of the batch in flight.
        @usableFromInline var inFlightUnheld: Set<ID> = []
        /// The mark stamped on the store at the last drain (see `EntityStore._drainMark`), 0
        /// before the first; the next one is `lastMark + 1`, unique to this writer.
        @usableFromInline var drainMark: UInt64 = 0
        @usableFromInline var lastMark: UInt64
        @inlinable init() { lastMark = ChangeFingerprint.next().raw << 32 }
    }
    /// Only used on the main actor. The members that the drain uses are `nonisolated` so
    /// that the drain closure, run after every reduce, needs no executor check.
    @usableFromInline nonisolated(unsafe) let fields: UnsafeMutablePointer<Fields>

    /// Latest value per written id, in first-recorded order; deletions by sequence number.
    @inlinable nonisolated var pendingWrites: PendingWrites<Entity> {
        _read { yield fields.pointee.pendingWrites }
        _modify { yield &fields.pointee.pendingWrites }
    }
    @inlinable nonisolated var pendingDeletions: [ID: UInt64] {
        _read { yield fields.pointee.pendingDeletions }
        _modify { yield &fields.pointee.pendingDeletions }
    }
    /// The complete order of the store, when it must be written.
    @inlinable nonisolated var pendingOrder: [ID]? {
        _read { yield fields.pointee.pendingOrder }
        _modify { yield &fields.pointee.pendingOrder }
    }
    @inlinable nonisolated var sequence: UInt64 {
        get { fields.pointee.sequence }
        set { fields.pointee.sequence = newValue }
    }
    /// The batch a flush took and has not finished writing.
    @inlinable nonisolated var inFlight: WriteBatch<Entity>? {
        _read { yield fields.pointee.inFlight }
        _modify { yield &fields.pointee.inFlight }
    }
    @inlinable nonisolated var inFlightDeletions: Set<ID> {
        _read { yield fields.pointee.inFlightDeletions }
        _modify { yield &fields.pointee.inFlightDeletions }
    }
    @inlinable nonisolated var unheldDeletions: Set<ID> {
        _read { yield fields.pointee.unheldDeletions }
        _modify { yield &fields.pointee.unheldDeletions }
    }
    @inlinable nonisolated var drainMark: UInt64 {
        get { fields.pointee.drainMark }
        set { fields.pointee.drainMark = newValue }
    }
    /// Receives the storage last drained when it is released (see ``drainReplacement(store:)``).
    @usableFromInline nonisolated let releaseWatch = EntityStore<Entity>.ReleaseWatch()
    @inlinable nonisolated var inFlightUnheld: Set<ID> {
        _read { yield fields.pointee.inFlightUnheld }
        _modify { yield &fields.pointee.inFlightUnheld }
    }

    init(keyPath: WritableKeyPath<State, EntityStore<Entity>>, sink: Sink) {
        self.keyPath = keyPath
        self.sink = sink
        fields = .allocate(capacity: 1)
        fields.initialize(to: Fields())
    }

    isolated deinit {
        fields.deinitialize(count: 1)
        fields.deallocate()
    }

    /// A box whose flush calls `apply`.
    @usableFromInline
    convenience init(
        keyPath: WritableKeyPath<State, EntityStore<Entity>>,
        direct apply: @escaping @Sendable (WriteBatch<Entity>) async throws -> WriteResult<ID>
    ) {
        self.init(keyPath: keyPath, sink: .direct(apply))
    }

    /// A box whose flush runs `apply` in `backend`'s transaction, with the other writers on it.
    @usableFromInline
    convenience init<Backend: TransactionalWriteBackend>(
        keyPath: WritableKeyPath<State, EntityStore<Entity>>,
        backend: Backend,
        apply: @escaping @Sendable (Backend.Transaction, WriteBatch<Entity>) throws -> WriteResult<ID>
    ) {
        let group = AtomicGroup(backend: backend)
        self.init(keyPath: keyPath, sink: .atomic(group, { batch in
            { (transaction: Any) throws -> any Sendable in
                try apply(transaction as! Backend.Transaction, batch)
            }
        }))
    }

    var hasPending: Bool { !pendingWrites.isEmpty || !pendingDeletions.isEmpty || pendingOrder != nil }

    var pendingChangeCount: Int { pendingWrites.count + pendingDeletions.count + (pendingOrder == nil ? 0 : 1) }

    func drain(_ state: inout State) -> Bool {
        drain(store: &state[keyPath: keyPath])
    }

    /// Drains in place (the closure built by `StateWriter.drain(_:at:)` hands it the store).
    /// Inlinable: the writer's initializers build that closure, specialized for the app's types.
    @inlinable
    nonisolated func drain(store: inout EntityStore<Entity>) -> Bool {
        // Another store assigned over the one drained last (`state.items = backup`).
        if store._drainMark != drainMark { return drainReplacement(store: &store) }
        guard !store._changes.isEmpty || store._changes._rehydrated else { return false }
        // The order must be written again when it changed, and refreshed on every drain while
        // one is pending or in flight (a failed batch's order is stale once the store changed).
        var orderDirty = store._changes.orderChanged || pendingOrder != nil || inFlight?.order != nil
        // `changes.deleted`, then `changes.upserted`, in record order, without building them.
        for entry in store._changes.journal where entry.kind == .deletion {
            let id = entry.id
            if let entity = store[id] {
                // Deleted, then added back by `merge(from:)` (which records nothing): the
                // backend must keep it, at the store's place.
                recordWrite(entity, insertion: true)
                orderDirty = true
            } else {
                recordDeletion(id)
            }
        }
        for entry in store._changes.journal where entry.kind == .insertion || entry.kind == .update {
            let id = entry.id
            guard let entity = store.storage.entity(forID: id, hint: entry.slot) else {
                recordDeletion(id)
                continue
            }
            let insertion = entry.kind == .insertion
            // Inserted again while its deletion waits or is in flight: should that deletion
            // fail, the backend still holds the row at its old place.
            if insertion, (!pendingDeletions.isEmpty && pendingDeletions[id] != nil)
                || (!inFlightDeletions.isEmpty && inFlightDeletions.contains(id)) { orderDirty = true }
            recordWrite(entity, insertion: insertion, slot: entry.slot)
        }
        if store._changes._rehydrated {
            // `merge(from:)` may have added back entities whose deletion waits or is in flight.
            for id in Array(pendingDeletions.keys) {
                if let entity = store[id] { recordWrite(entity, insertion: true); orderDirty = true }
            }
            for id in inFlightDeletions where pendingWrites[id] == nil {
                if let entity = store[id] { recordWrite(entity, insertion: true); orderDirty = true }
            }
        }
        if orderDirty { pendingOrder = store.ids }
        store._changes.removeAllAfterDrain()
        stamp(&store)
        return true
    }

    /// Marks `store` as drained by this writer and watches its storage for release.
    @inlinable
    nonisolated func stamp(_ store: inout EntityStore<Entity>) {
        fields.pointee.lastMark &+= 1
        drainMark = fields.pointee.lastMark
        store._drainMark = drainMark
        if store.storage.fields.pointee.releaseWatch !== releaseWatch { watch(store.storage) }
    }

    /// Records `entity` as its id's latest pending value; `slot`, where the store holds it
    /// (-1: unknown), lets an id written again be found without hashing (``PendingWrites``).
    ///
    /// An entity added back while its deletion is still pending (delete, then undo, within
    /// one window) is an **update** when the backend held it — should another writer have
    /// deleted the row meanwhile, delete wins — and an insertion only when it never did.
    ///
    /// `reclassify: false` keeps `insertion` as given (a failed batch put back under newer
    /// changes: those were classified when they were drained, against the batch in flight).
    @inlinable
    nonisolated func recordWrite(_ entity: Entity, insertion: Bool, slot: Int = -1, reclassify: Bool = true) {
        var insertion = insertion
        if !pendingDeletions.isEmpty, pendingDeletions.removeValue(forKey: entity.id) != nil {
            let unheld = !unheldDeletions.isEmpty && unheldDeletions.remove(entity.id) != nil
            if reclassify { insertion = unheld }
        }
        pendingWrites.record(entity, insertion: insertion, slot: slot)
    }

    /// Records the deletion of `id`. The deletion of an entity whose pending write was an
    /// insertion is still sent: a store's insertion may re-create a row the backend holds
    /// (deleted and inserted again within one reduce). Finding no row, it is not reported
    /// (see ``complete(_:)``).
    @inlinable
    nonisolated func recordDeletion(_ id: ID) {
        if !pendingWrites.isEmpty, let removed = pendingWrites.remove(id) {
            // Whether the backend holds the row the deletion removes (see `recordWrite`).
            if removed.isInsertion {
                unheldDeletions.insert(id)
            } else if !unheldDeletions.isEmpty {
                unheldDeletions.remove(id)
            }
        }
        sequence &+= 1
        pendingDeletions[id] = sequence
    }

    func takePending() -> PendingFlush {
        let writes = pendingWrites.ordered
        var insertions = Set<ID>()
        for write in writes where write.isInsertion {
            if insertions.isEmpty { insertions.reserveCapacity(writes.count) }
            insertions.insert(write.entity.id)
        }
        let batch = WriteBatch<Entity>(
            writes: writes.map { $0.entity },
            deletions: pendingDeletions.count <= 1
                ? Array(pendingDeletions.keys)
                : pendingDeletions.sorted { $0.value < $1.value }.map { $0.key },
            order: pendingOrder,
            insertions: insertions
        )
        pendingWrites.removeAll()
        pendingDeletions.removeAll()
        pendingOrder = nil
        inFlightUnheld = unheldDeletions
        unheldDeletions.removeAll()
        inFlight = batch
        inFlightDeletions = Set(batch.deletions)
        let run: PendingFlush.Run
        switch sink {
        case .direct(let write): run = .direct { try await write(batch) }
        case .atomic(let group, let stage): run = .atomic(group, stage(batch))
        }
        return PendingFlush(run: run, isEmpty: batch.isEmpty, payload: batch,
                            count: batch.writes.count + batch.deletions.count)
    }

    func restorePending(_ flush: PendingFlush) {
        guard let batch = flush.payload as? WriteBatch<Entity> else { return }
        inFlight = nil
        inFlightDeletions.removeAll()
        unheldDeletions.formUnion(inFlightUnheld)
        inFlightUnheld.removeAll()
        // Newer pending changes win over the failed batch's.
        let newerWrites = pendingWrites, newerDeletions = pendingDeletions, newerOrder = pendingOrder
        pendingWrites.removeAll(); pendingDeletions.removeAll()
        for id in batch.deletions { recordDeletion(id) }
        for entity in batch.writes { recordWrite(entity, insertion: batch.isInsertion(entity.id)) }
        for (id, _) in newerDeletions.sorted(by: { $0.value < $1.value }) { recordDeletion(id) }
        for write in newerWrites.ordered { recordWrite(write.entity, insertion: write.isInsertion, reclassify: false) }
        // Any drain since the batch was taken refreshed the order (see `drain`).
        pendingOrder = newerOrder ?? batch.order
    }

    func complete(_ result: any Sendable) -> VanishedInWriter<State>? {
        inFlight = nil
        // Deletions of entities inserted since the last flush: finding no row is expected
        // (the backend never held it), not the work of another writer.
        let unheld = inFlightUnheld
        inFlightUnheld.removeAll()
        let deletedByThisBatch = inFlightDeletions
        inFlightDeletions.removeAll()
        guard let result = result as? WriteResult<ID>, !result.vanished.isEmpty || !result.orphaned.isEmpty else { return nil }
        var forget: [ID] = []
        for id in result.orphaned {
            // Set aside by the backend (its parent is gone): any newer write would be too.
            pendingWrites.remove(id)
            pendingDeletions.removeValue(forKey: id)
            forget.append(id)
        }
        for id in result.vanished {
            // A deletion that found no row (another writer or a cascade was first): the store
            // deleted it already; nothing to learn, and its undo history stays intact.
            if deletedByThisBatch.contains(id) { continue }
            if let write = pendingWrites[id] {
                // A newer insertion re-creates the entity: the store keeps it.
                if write.isInsertion { continue }
                // A newer update would vanish again.
                pendingWrites.remove(id)
            }
            // The row is gone already.
            pendingDeletions.removeValue(forKey: id)
            forget.append(id)
        }
        if !forget.isEmpty, let order = pendingOrder {
            let gone = Set(forget)
            pendingOrder = order.filter { !gone.contains($0) }
        }
        let keyPath = self.keyPath
        let reported = unheld.isEmpty ? result.vanished : result.vanished.filter { !unheld.contains($0) }
        if reported.isEmpty, result.orphaned.isEmpty, forget.isEmpty { return nil }
        return VanishedInWriter(
            ids: reported.map { $0 as any Hashable & Sendable },
            orphaned: result.orphaned.map { $0 as any Hashable & Sendable },
            remove: { state in state[keyPath: keyPath].removeUnrecorded(forget) }
        )
    }

    func restore(_ next: inout State, current: State) {
        var store = current[keyPath: keyPath]
        store.restore(from: next[keyPath: keyPath])
        next[keyPath: keyPath] = store
    }
}
