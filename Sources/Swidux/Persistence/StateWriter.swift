/// Drains the change log of one ``EntityStore`` in the state and accumulates the work
/// to persist, which ``PersistenceMiddleware`` flushes in batches.
///
/// ```swift
/// StateWriter(keyPath: \AppState.items) { writes, deletions in
///     for item in writes { try await itemDB.upsert(item) }
///     for id in deletions { try await itemDB.delete(id: id) }
/// }
/// ```
///
/// Within a pending batch, a later change of an id overwrites an earlier one: only the
/// latest value is written, and a delete after an upsert writes only the delete.
@MainActor
public final class StateWriter<State> {
    /// A readable name for logs and errors (the key path).
    public let name: String
    let box: any StateWriterBox<State>

    /// The seed form: the closure receives the upserted entities and the deleted ids.
    public convenience init<Entity>(
        keyPath: WritableKeyPath<State, EntityStore<Entity>>,
        write: @escaping @Sendable (_ writes: [Entity], _ deletions: [Entity.ID]) async throws -> Void
    ) {
        self.init(keyPath: keyPath, writeBatch: { batch in try await write(batch.writes, batch.deletions) })
    }

    /// The batch form: the closure also learns when the order of the entities changed.
    public init<Entity>(
        keyPath: WritableKeyPath<State, EntityStore<Entity>>,
        writeBatch: @escaping @Sendable (WriteBatch<Entity>) async throws -> Void
    ) {
        self.name = "\(keyPath)"
        self.box = TypedStateWriterBox(keyPath: keyPath, sink: .direct(writeBatch))
    }

    /// The transactional form: `stage` runs inside `backend`'s transaction, together with
    /// every other writer on the same backend, so that one flush is atomic.
    public convenience init<Entity, Backend: TransactionalWriteBackend>(
        keyPath: WritableKeyPath<State, EntityStore<Entity>>,
        backend: Backend,
        stage: @escaping @Sendable (Backend.Transaction, WriteBatch<Entity>) throws -> Void
    ) {
        self.init(keyPath: keyPath, backend: backend, apply: { transaction, batch in
            try stage(transaction, batch)
            return .none
        })
    }

    /// The transactional form that reports back: `apply` runs inside `backend`'s
    /// transaction and returns the ids that had vanished from the backend (see
    /// ``WriteResult``); the middleware removes them from the store after the commit.
    public init<Entity, Backend: TransactionalWriteBackend>(
        keyPath: WritableKeyPath<State, EntityStore<Entity>>,
        backend: Backend,
        apply: @escaping @Sendable (Backend.Transaction, WriteBatch<Entity>) throws -> WriteResult<Entity.ID>
    ) {
        self.name = "\(keyPath)"
        let group = AtomicGroup(backend: backend)
        self.box = TypedStateWriterBox(keyPath: keyPath, sink: .atomic(group, { batch in
            { (transaction: Any) throws -> Void in
                // TODO(persistence): carry the result back to the middleware.
                _ = try apply(transaction as! Backend.Transaction, batch)
            }
        }))
    }

    /// `true` when changes are waiting to be flushed.
    public var hasPendingWrites: Bool { box.hasPending }
}

/// Type erasure for one writer's pending work.
@MainActor
protocol StateWriterBox<State>: AnyObject {
    associatedtype State
    var hasPending: Bool { get }
    /// Moves the entity store's change log into the pending batch. Returns `true` if anything was drained.
    func drain(_ state: inout State) -> Bool
    /// Takes the pending batch for a flush, leaving nothing pending.
    func takePending() -> PendingFlush
    /// Puts a batch that failed back, under anything newer.
    func restorePending(_ flush: PendingFlush)
    /// Sets `next`'s entity store to `current`'s restored from `next`'s, so that the
    /// differences between the live state and the snapshot are recorded.
    func restore(_ next: inout State, current: State)
}

/// A taken batch, ready to run, and a way to give it back if it fails.
struct PendingFlush: @unchecked Sendable {
    enum Run {
        case direct(@Sendable () async throws -> Void)
        case atomic(AtomicGroup, @Sendable (Any) throws -> Void)
    }
    let run: Run
    let isEmpty: Bool
    let payload: Any
    let count: Int
}

/// Identity of a transactional backend, with a type-erased way to run operations on it.
struct AtomicGroup: @unchecked Sendable {
    let id: ObjectIdentifier
    let perform: @Sendable ([@Sendable (Any) throws -> Void]) async throws -> Void

    init<Backend: TransactionalWriteBackend>(backend: Backend) {
        id = ObjectIdentifier(backend)
        perform = { operations in
            try await backend.performAtomically(operations.map { op in
                { (transaction: Backend.Transaction) throws -> Void in try op(transaction) }
            })
        }
    }
}

@MainActor
final class TypedStateWriterBox<State, Entity: Identifiable & Equatable & Sendable>: StateWriterBox where Entity.ID: Sendable {
    enum Sink {
        case direct(@Sendable (WriteBatch<Entity>) async throws -> Void)
        case atomic(AtomicGroup, (WriteBatch<Entity>) -> @Sendable (Any) throws -> Void)
    }

    let keyPath: WritableKeyPath<State, EntityStore<Entity>>
    let sink: Sink
    /// Latest value per upserted id, in first-recorded order; deletions likewise.
    var pendingWrites: [Entity.ID: (seq: UInt64, entity: Entity)] = [:]
    var pendingDeletions: [Entity.ID: UInt64] = [:]
    var pendingOrder: [Entity.ID]?
    var sequence: UInt64 = 0

    init(keyPath: WritableKeyPath<State, EntityStore<Entity>>, sink: Sink) {
        self.keyPath = keyPath
        self.sink = sink
    }

    var hasPending: Bool { !pendingWrites.isEmpty || !pendingDeletions.isEmpty || pendingOrder != nil }

    func drain(_ state: inout State) -> Bool {
        guard !state[keyPath: keyPath].changes.isEmpty else { return false }
        let changes = state[keyPath: keyPath].drainChanges()
        let store = state[keyPath: keyPath]
        var reinserted = false
        for id in changes.deleted { recordDeletion(id) }
        for id in changes.upserted {
            if let entity = store[id] {
                // Deleted in an earlier drain, inserted again now: the backend row must move.
                if pendingDeletions[id] != nil { reinserted = true }
                recordWrite(entity)
            } else {
                recordDeletion(id)
            }
        }
        // While a reorder is pending the order must stay complete: refresh it on every drain.
        if changes.orderChanged || reinserted || pendingOrder != nil { pendingOrder = store.ids }
        return true
    }

    private func recordWrite(_ entity: Entity) {
        pendingDeletions.removeValue(forKey: entity.id)
        if let existing = pendingWrites[entity.id] {
            pendingWrites[entity.id] = (existing.seq, entity)
        } else {
            sequence &+= 1
            pendingWrites[entity.id] = (sequence, entity)
        }
    }

    private func recordDeletion(_ id: Entity.ID) {
        pendingWrites.removeValue(forKey: id)
        sequence &+= 1
        pendingDeletions[id] = sequence
    }

    func takePending() -> PendingFlush {
        let batch = WriteBatch<Entity>(
            writes: pendingWrites.count <= 1
                ? pendingWrites.values.map { $0.entity }
                : pendingWrites.values.sorted { $0.seq < $1.seq }.map { $0.entity },
            deletions: pendingDeletions.count <= 1
                ? Array(pendingDeletions.keys)
                : pendingDeletions.sorted { $0.value < $1.value }.map { $0.key },
            order: pendingOrder
        )
        pendingWrites.removeAll()
        pendingDeletions.removeAll()
        pendingOrder = nil
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
        // Newer pending changes win over the failed batch's.
        let newerWrites = pendingWrites, newerDeletions = pendingDeletions, newerOrder = pendingOrder
        pendingWrites.removeAll(); pendingDeletions.removeAll(); pendingOrder = batch.order
        for id in batch.deletions { recordDeletion(id) }
        for entity in batch.writes { recordWrite(entity) }
        for (id, _) in newerDeletions.sorted(by: { $0.value < $1.value }) { recordDeletion(id) }
        for (_, record) in newerWrites.sorted(by: { $0.value.seq < $1.value.seq }) { recordWrite(record.entity) }
        if let newerOrder { pendingOrder = newerOrder }
    }

    func restore(_ next: inout State, current: State) {
        var store = current[keyPath: keyPath]
        store.restore(from: next[keyPath: keyPath])
        next[keyPath: keyPath] = store
    }
}
