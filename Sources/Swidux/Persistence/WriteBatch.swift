/// One flush's worth of work for one ``StateWriter``: the entities to upsert, the ids
/// to delete and, when the entities were reordered, their complete order.
///
/// `writes` are in the order their ids were first recorded (deterministic); an id is
/// never in both `writes` and `deletions`.
public struct WriteBatch<Entity: Identifiable & Sendable>: Sendable where Entity.ID: Sendable {
    /// Entities to insert or update, latest values.
    public var writes: [Entity]
    /// Ids to delete.
    public var deletions: [Entity.ID]
    /// The ids of every entity in their current order, present only when the order
    /// changed (sort, move, restore, or an entity added back while its deletion was still
    /// waiting or in flight) since the last flush. A backend stores this order;
    /// should a stored id be missing from it (never the case for a batch taken from one
    /// drain sequence), that id keeps its relative place after the listed ones.
    public var order: [Entity.ID]?
    /// The ids among ``writes`` that are **insertions**: entities the store added (new, or
    /// added again after a deletion) since the backend last saw them. Every other write is
    /// an **update** of a row the store loaded or wrote before. Delete wins over a stale
    /// update: a backend that can tell must not re-create the row of an update whose row
    /// another writer deleted meanwhile; it reports the id in ``WriteResult/vanished``.
    public var insertions: Set<Entity.ID>

    /// A batch; `insertions` defaults to every id of `writes` (plain upserts).
    public init(
        writes: [Entity] = [], deletions: [Entity.ID] = [], order: [Entity.ID]? = nil,
        insertions: Set<Entity.ID>? = nil
    ) {
        self.writes = writes
        self.deletions = deletions
        self.order = order
        self.insertions = insertions ?? Set(writes.map(\.id))
    }

    /// `true` if the write of `id` is an insertion (see ``insertions``).
    public func isInsertion(_ id: Entity.ID) -> Bool { insertions.contains(id) }

    /// `true` when there is nothing to write.
    public var isEmpty: Bool { writes.isEmpty && deletions.isEmpty && order == nil }
}

/// What a backend reports back after writing a ``WriteBatch``.
///
/// ```swift
/// let result = try table.write(batch, in: db)
/// result.vanished   // updates refused because another writer deleted the row
/// ```
public struct WriteResult<ID: Hashable & Sendable>: Sendable, Equatable {
    /// Ids the batch expected in the backend that were no longer there: updates that were
    /// not applied (delete wins over a stale update) and deletions that found no row.
    /// The ``PersistenceMiddleware`` removes them from the store, without writing back.
    public var vanished: [ID]
    /// Writes the backend **set aside** because they can never succeed: the entity
    /// references a row another writer deleted (a foreign key whose parent is gone). The
    /// backend wrote the rest of the batch and removed these rows, as a cascade would have;
    /// the ``PersistenceMiddleware`` removes the entities from the store, without writing
    /// back, and reports them to ``PersistenceMiddleware/onVanished`` (reason `.orphaned`).
    public var orphaned: [ID]

    /// A result.
    ///
    /// ```swift
    /// WriteResult(vanished: [staleID], orphaned: [childOfDeletedParent])
    /// ```
    public init(vanished: [ID] = [], orphaned: [ID] = []) {
        self.vanished = vanished
        self.orphaned = orphaned
    }

    /// Nothing to report.
    public static var none: WriteResult { WriteResult() }
}

/// What a ``StateWriter``'s reporting closure returns: a ``WriteResult``.
///
/// The reporting initializers (`apply:`) are generic over it so that a trailing closure
/// picks its initializer by what it returns: a closure returning a result reports back,
/// one returning nothing is the plain form (`stage:`, `writeBatch:`), even with several
/// statements.
///
/// ```swift
/// StateWriter(keyPath: \AppState.items, backend: database) { db, batch in
///     try itemTable.write(batch, in: db)   // discarded: the `stage:` form
///     try auditTable.log(batch, in: db)
/// }
/// ```
public protocol WriteResultConvertible<ID>: Sendable {
    /// The id type of the entities reported.
    associatedtype ID: Hashable & Sendable
    /// The result to report.
    var writeResult: WriteResult<ID> { get }
}

extension WriteResult: WriteResultConvertible {
    /// Itself.
    public var writeResult: WriteResult<ID> { self }
}

/// A backend that applies the batches of several writers in **one atomic transaction**
/// (all or nothing). `SwiduxSQLite`'s database conforms: one flush is one transaction.
///
/// The ``PersistenceMiddleware`` groups the writers that share a backend (same object)
/// and hands their staged operations to one ``performAtomically(_:)`` call, at the
/// position of the first of them in registration order.
public protocol TransactionalWriteBackend<Transaction>: AnyObject, Sendable {
    /// The handle operations receive inside the transaction (GRDB's `Database`).
    associatedtype Transaction
    /// Runs every operation in order inside one transaction; if one throws, none of them is kept.
    func performAtomically(_ operations: [@Sendable (Transaction) throws -> Void]) async throws
}

extension WriteBatch: Equatable where Entity: Equatable {}

extension WriteBatch: CustomStringConvertible {
    /// `WriteBatch(writes: […], deletions: […])`, for logs and test failures; the order and
    /// the insertions are shown when present and not the default (every write).
    public var description: String {
        let ids = writes.map(\.id)
        let shownInsertions = insertions == Set(ids) ? "" : ", insertions: \(ids.filter { insertions.contains($0) })"
        return "WriteBatch(writes: \(writes), deletions: \(deletions)\(order.map { ", order: \($0)" } ?? "")\(shownInsertions))"
    }
}
