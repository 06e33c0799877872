import Foundation

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
    /// Drains the change log of the writer's entity store into its pending batch. Built by the
    /// (inlinable) initializers, so that it is specialized for the app's state and entity
    /// types: run after every reduce, the unspecialized generic drain cost microseconds.
    ///
    /// Nonisolated (it only runs on the main actor, called by the middleware): a closure
    /// typed `@MainActor` checks its executor on entry, a few hundred instructions per call.
    let drainState: (inout State) -> Bool

    /// Every initializer ends here: `drain` is built by the caller, in inlinable code.
    @usableFromInline
    init<Entity>(
        keyPath: WritableKeyPath<State, EntityStore<Entity>>,
        box: TypedStateWriterBox<State, Entity>,
        drain: @escaping (inout State) -> Bool
    ) {
        self.name = "\(keyPath)"
        self.box = box
        self.drainState = drain
    }

    /// The seed form: the closure receives the upserted entities and the deleted ids.
    @inlinable
    public convenience init<Entity>(
        keyPath: WritableKeyPath<State, EntityStore<Entity>>,
        write: @escaping @Sendable (_ writes: [Entity], _ deletions: [Entity.ID]) async throws -> Void
    ) {
        self.init(keyPath: keyPath, writeBatch: { batch in try await write(batch.writes, batch.deletions) })
    }

    /// The batch form: the closure also learns when the order of the entities changed and
    /// which writes are insertions (``WriteBatch/insertions``).
    ///
    /// ```swift
    /// StateWriter(keyPath: \AppState.items, writeBatch: { batch in
    ///     try await itemDB.save(batch.writes, deleting: batch.deletions, order: batch.order)
    /// })
    /// ```
    @inlinable
    public convenience init<Entity>(
        keyPath: WritableKeyPath<State, EntityStore<Entity>>,
        writeBatch: @escaping @Sendable (WriteBatch<Entity>) async throws -> Void
    ) {
        self.init(keyPath: keyPath, apply: { batch in
            try await writeBatch(batch)
            return WriteResult<Entity.ID>.none
        })
    }

    /// The reporting form: the closure writes the batch and returns what it found gone from
    /// the backend (see ``WriteResult``); the middleware removes those entities from the
    /// store after the flush, without writing back. Use it for a backend that applies the
    /// rule "delete wins over a stale update" (only ``WriteBatch/insertions`` create rows).
    ///
    /// ```swift
    /// StateWriter(keyPath: \AppState.items, apply: { batch in
    ///     try await itemService.save(batch)   // returns WriteResult(vanished: idsNotFound)
    /// })
    /// ```
    ///
    /// Generic over the result (always a ``WriteResult``: see ``WriteResultConvertible``) so
    /// that a trailing closure is unambiguous: one that returns a result reports back, one
    /// that returns nothing is the batch form.
    @inlinable
    public convenience init<Entity, Result: WriteResultConvertible>(
        keyPath: WritableKeyPath<State, EntityStore<Entity>>,
        apply: @escaping @Sendable (WriteBatch<Entity>) async throws -> Result
    ) where Result.ID == Entity.ID {
        let box = TypedStateWriterBox<State, Entity>(keyPath: keyPath, direct: { batch in try await apply(batch).writeResult })
        self.init(keyPath: keyPath, box: box, drain: Self.drain(box, at: keyPath))
    }

    /// The transactional form: `stage` runs inside `backend`'s transaction, together with
    /// every other writer on the same backend, so that one flush is atomic.
    @inlinable
    public convenience init<Entity, Backend: TransactionalWriteBackend>(
        keyPath: WritableKeyPath<State, EntityStore<Entity>>,
        backend: Backend,
        stage: @escaping @Sendable (Backend.Transaction, WriteBatch<Entity>) throws -> Void
    ) {
        self.init(keyPath: keyPath, backend: backend, apply: { transaction, batch in
            try stage(transaction, batch)
            return WriteResult<Entity.ID>.none
        })
    }

    /// The transactional form that reports back: `apply` runs inside `backend`'s
    /// transaction and returns the ids that had vanished from the backend (see
    /// ``WriteResult``); the middleware removes them from the store after the commit.
    ///
    /// ```swift
    /// StateWriter(keyPath: \AppState.items, backend: database, apply: { db, batch in
    ///     try itemTable.write(batch, in: db)
    /// })
    /// ```
    ///
    /// Generic over the result (always a ``WriteResult``: see ``WriteResultConvertible``) so
    /// that a trailing closure is unambiguous: one that returns a result is this form, one
    /// that returns nothing (whatever its number of statements) is the `stage:` form.
    ///
    /// ```swift
    /// StateWriter(keyPath: \AppState.items, backend: database) { db, batch in
    ///     let result = try itemTable.write(batch, in: db)
    ///     try auditTable.log(batch, in: db)
    ///     return result
    /// }
    /// ```
    @inlinable
    public convenience init<Entity, Backend: TransactionalWriteBackend, Result: WriteResultConvertible>(
        keyPath: WritableKeyPath<State, EntityStore<Entity>>,
        backend: Backend,
        apply: @escaping @Sendable (Backend.Transaction, WriteBatch<Entity>) throws -> Result
    ) where Result.ID == Entity.ID {
        let box = TypedStateWriterBox<State, Entity>(keyPath: keyPath, backend: backend, apply: { transaction, batch in
            try apply(transaction, batch).writeResult
        })
        self.init(keyPath: keyPath, box: box, drain: Self.drain(box, at: keyPath))
    }

    /// `true` when changes are waiting to be flushed.
    public var hasPendingWrites: Bool { box.hasPending }

    /// The drain of `box`'s store, at `keyPath` in the state. For a stored property (the
    /// usual `\AppState.items`) the store is reached at its byte offset: applying a key path
    /// costs a few hundred instructions, on every dispatch.
    /// Nonisolated, so that the closure is too (see ``drainState``).
    @inlinable
    nonisolated static func drain<Entity>(
        _ box: TypedStateWriterBox<State, Entity>,
        at keyPath: WritableKeyPath<State, EntityStore<Entity>>
    ) -> (inout State) -> Bool {
        guard let offset = MemoryLayout<State>.offset(of: keyPath) else {
            return { state in box.drain(store: &state[keyPath: keyPath]) }
        }
        return { state in
            withUnsafeMutablePointer(to: &state) { state in
                box.drain(store: &(UnsafeMutableRawPointer(state) + offset).assumingMemoryBound(to: EntityStore<Entity>.self).pointee)
            }
        }
    }
}

/// Type erasure for one writer's pending work.
@MainActor
protocol StateWriterBox<State>: AnyObject {
    associatedtype State
    var hasPending: Bool { get }
    /// Writes plus deletions pending, a pending reorder counting as one.
    var pendingChangeCount: Int { get }
    /// Moves the entity store's change log into the pending batch. Returns `true` if anything was drained.
    func drain(_ state: inout State) -> Bool
    /// Takes the pending batch for a flush, leaving nothing pending; it is in flight until
    /// ``complete(_:)`` or ``restorePending(_:)``.
    func takePending() -> PendingFlush
    /// Puts a batch that failed back, under anything newer.
    func restorePending(_ flush: PendingFlush)
    /// The batch in flight was written; `result` is what the backend returned (a
    /// `WriteResult` of the writer's id type). Forgets pending updates of vanished ids (they
    /// would vanish again) and returns the vanished ids, with the ones to remove from the
    /// state (those without a newer pending insertion).
    func complete(_ result: any Sendable) -> VanishedInWriter<State>?
    /// Sets `next`'s entity store to `current`'s restored from `next`'s, so that the
    /// differences between the live state and the snapshot are recorded.
    func restore(_ next: inout State, current: State)
}

/// What one writer's flush found gone from the backend, and how to take it out of a state.
struct VanishedInWriter<State> {
    /// Every vanished id (for ``VanishedEntities``).
    let ids: [any Hashable & Sendable]
    /// Every write the backend set aside as orphaned (``WriteResult/orphaned``).
    let orphaned: [any Hashable & Sendable]
    /// Removes from a state the vanished entities the store must forget, without recording.
    let remove: (inout State) -> Void
}

/// A taken batch, ready to run, and a way to give it back if it fails.
struct PendingFlush: @unchecked Sendable {
    enum Run {
        /// Writes the batch; returns its `WriteResult`.
        case direct(@Sendable () async throws -> any Sendable)
        /// Stages the batch in the group's transaction; returns its `WriteResult`.
        case atomic(AtomicGroup, @Sendable (Any) throws -> any Sendable)
    }
    let run: Run
    let isEmpty: Bool
    let payload: Any
    let count: Int
}

/// Identity of a transactional backend, with a type-erased way to run operations on it.
struct AtomicGroup: @unchecked Sendable {
    let id: ObjectIdentifier
    /// Runs the operations in one transaction; returns their results, in order.
    let perform: @Sendable ([@Sendable (Any) throws -> any Sendable]) async throws -> [any Sendable]

    init<Backend: TransactionalWriteBackend>(backend: Backend) {
        id = ObjectIdentifier(backend)
        perform = { operations in
            let results = ResultSlots(count: operations.count)
            try await backend.performAtomically(operations.enumerated().map { index, op in
                { (transaction: Backend.Transaction) throws -> Void in results.set(index, try op(transaction)) }
            })
            return results.values
        }
    }
}

/// Where the operations of one transaction leave their results (they run on the backend's
/// executor; read after the transaction committed).
final class ResultSlots: @unchecked Sendable {
    private let lock = NSLock()
    private var slots: [any Sendable]

    init(count: Int) { slots = Array(repeating: WriteResult<Int>.none, count: count) }

    func set(_ index: Int, _ value: any Sendable) {
        lock.lock(); defer { lock.unlock() }
        slots[index] = value
    }

    var values: [any Sendable] {
        lock.lock(); defer { lock.unlock() }
        return slots
    }
}

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
        /// The storage of the store last drained, while something else holds it.
        @usableFromInline weak var drainedStorage: EntityStore<Entity>.Storage?
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
        return VanishedInWriter(
            ids: result.vanished.map { $0 as any Hashable & Sendable },
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
