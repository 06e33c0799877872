import Foundation
@testable import Swidux

/// A test backend that stores rows with integer positions and applies batches the way
/// `SwiduxSQLite`'s `EntityTable.write` does, in one atomic transaction per flush:
///
/// - deletions first (a deletion that finds no row is vanished);
/// - then writes: an **insertion** inserts a missing row after the largest position (in the
///   batch's order) or updates an existing one in place; an **update** changes an existing
///   row in place and, if the row is missing, is not applied and is vanished (delete wins
///   over a stale update) — unless `updatesInsertMissingRows` (a plain upsert backend);
/// - then, if the batch has an order, the listed rows get positions `0..<k` and the stored
///   rows it does not list keep their relative order after them.
///
/// Writes can be held in flight (`holdNextWrite()`, then `release(failing:)`) and fail on
/// demand; a failed transaction changes nothing.
final class PositionTable<Entity: Identifiable & Equatable & Sendable>: TransactionalWriteBackend, @unchecked Sendable
where Entity.ID: Sendable & Comparable {
    /// The rows a transaction works on; committed only if every operation succeeds.
    final class Transaction {
        var rows: [Entity.ID: (entity: Entity, position: Int)]
        var batches: [WriteBatch<Entity>] = []
        init(rows: [Entity.ID: (entity: Entity, position: Int)]) { self.rows = rows }
    }

    private let lock = LockedValue(())
    private var rows: [Entity.ID: (entity: Entity, position: Int)] = [:]
    private var recorded: [WriteBatch<Entity>] = []
    private var failuresLeft = 0
    private var holdNext = false
    private var held: CheckedContinuation<Bool, Never>?
    private var attempts = 0
    var updatesInsertMissingRows = false

    init(_ initial: [Entity] = []) {
        for (offset, entity) in initial.enumerated() { rows[entity.id] = (entity, offset) }
    }

    private func locked<T, E: Error>(_ body: () throws(E) -> T) throws(E) -> T {
        try lock.withLock { (_: inout Void) throws(E) -> T in try body() }
    }

    /// The stored entities ordered by position (then id), as a hydration would load them.
    var stored: [Entity] {
        locked { rows.values.sorted { ($0.position, $0.entity.id) < ($1.position, $1.entity.id) }.map(\.entity) }
    }
    var storedIDs: [Entity.ID] { stored.map(\.id) }
    var batches: [WriteBatch<Entity>] { locked { recorded } }
    var writeAttempts: Int { locked { attempts } }
    var isHolding: Bool { locked { held != nil } }

    func failNext(_ count: Int = 1) { locked { failuresLeft = count } }
    func holdNextWrite() { locked { holdNext = true } }

    /// Lets the held write go on; with `failing`, its transaction throws.
    func release(failing: Bool) {
        let continuation = locked { () -> CheckedContinuation<Bool, Never>? in
            defer { held = nil }
            return held
        }
        continuation?.resume(returning: failing)
    }

    /// Another writer deletes rows (plain SQL, another process).
    func deleteExternally(_ ids: [Entity.ID]) {
        locked { for id in ids { rows.removeValue(forKey: id) } }
    }

    func performAtomically(_ operations: [@Sendable (Transaction) throws -> Void]) async throws {
        let hold = locked { () -> Bool in
            attempts += 1
            defer { holdNext = false }
            return holdNext
        }
        var fail = false
        if hold { fail = await withCheckedContinuation { continuation in locked { held = continuation } } }
        try locked {
            if fail || failuresLeft > 0 {
                if !fail { failuresLeft -= 1 }
                throw TestError(message: "position table unavailable")
            }
            let transaction = Transaction(rows: rows)
            for operation in operations { try operation(transaction) }
            rows = transaction.rows
            recorded += transaction.batches
        }
    }

    /// Applies one batch inside a transaction, like `EntityTable.write(_:in:)`.
    func apply(_ batch: WriteBatch<Entity>, in transaction: Transaction) -> WriteResult<Entity.ID> {
        var vanished: [Entity.ID] = []
        for id in batch.deletions where transaction.rows.removeValue(forKey: id) == nil {
            vanished.append(id)
        }
        let maxPosition = transaction.rows.values.map(\.position).max() ?? -1
        for (offset, entity) in batch.writes.enumerated() {
            if let existing = transaction.rows[entity.id] {
                transaction.rows[entity.id] = (entity, existing.position)
            } else if batch.isInsertion(entity.id) || updatesInsertMissingRows {
                transaction.rows[entity.id] = (entity, maxPosition + 1 + offset)
            } else {
                vanished.append(entity.id)
            }
        }
        if let order = batch.order {
            let listed = Set(order)
            var next = 0
            for id in order where transaction.rows[id] != nil {
                transaction.rows[id]!.position = next
                next += 1
            }
            let unlisted = transaction.rows.values.filter { !listed.contains($0.entity.id) }
                .sorted { ($0.position, $0.entity.id) < ($1.position, $1.entity.id) }
            for row in unlisted {
                transaction.rows[row.entity.id]!.position = next
                next += 1
            }
        }
        transaction.batches.append(batch)
        return WriteResult(vanished: vanished)
    }

    /// A writer of the entity store at `keyPath` into this table (the transactional form).
    @MainActor
    func writer<State>(_ keyPath: WritableKeyPath<State, EntityStore<Entity>>) -> StateWriter<State> {
        StateWriter(keyPath: keyPath, backend: self, apply: { [self] transaction, batch in
            apply(batch, in: transaction)
        })
    }
}
