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
    /// The writer's entity store as an undoable part: what a store's undo records when the
    /// app names no part (``UndoMiddleware/init(maxDepth:)``).
    let undoPath: UndoRecordedPath<State>

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
        self.undoPath = UndoRecordedPath(keyPath)
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
final class ResultSlots: Sendable {
    private let slots: LockedValue<[any Sendable]>

    init(count: Int) { slots = LockedValue(Array(repeating: WriteResult<Int>.none, count: count)) }

    func set(_ index: Int, _ value: any Sendable) {
        slots.withLock { $0[index] = value }
    }

    var values: [any Sendable] { slots.withLock { $0 } }
}
