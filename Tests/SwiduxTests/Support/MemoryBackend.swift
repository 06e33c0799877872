import Foundation
@testable import Swidux

/// An in-memory table for tests: rows by id in stored order, every batch recorded,
/// optional injected failures and an optional gate that holds writes.
final class MemoryTable<Entity: Identifiable & Equatable & Sendable>: @unchecked Sendable where Entity.ID: Sendable {
    private let lock = LockedValue(())
    private var rows: [Entity.ID: Entity] = [:]
    private var order: [Entity.ID] = []
    private var recorded: [WriteBatch<Entity>] = []
    private var failuresLeft = 0
    private var active = 0
    private var maxActive = 0
    let name: String
    let log: Recorder<String>?
    var gate: Gate?

    init(name: String = "table", log: Recorder<String>? = nil) {
        self.name = name
        self.log = log
    }

    func failNext(_ count: Int) { lock.withLock { _ in failuresLeft = count } }

    var batches: [WriteBatch<Entity>] { lock.withLock { _ in recorded } }
    var maxConcurrentWrites: Int { lock.withLock { _ in maxActive } }
    /// The stored entities in stored order (what a hydration would load).
    var stored: [Entity] { lock.withLock { _ in order.compactMap { rows[$0] } } }

    private func locked<T, E: Error>(_ body: () throws(E) -> T) throws(E) -> T {
        try lock.withLock { (_: inout Void) throws(E) -> T in try body() }
    }

    func write(_ batch: WriteBatch<Entity>) async throws {
        locked { active += 1; maxActive = max(maxActive, active) }
        defer { locked { active -= 1 } }
        if let gate { await gate.wait() }
        try locked { try apply(batch) }
    }

    private func apply(_ batch: WriteBatch<Entity>) throws {
        if failuresLeft > 0 {
            failuresLeft -= 1
            throw TestError(message: "\(name) unavailable")
        }
        log?.append(name)
        recorded.append(batch)
        for id in batch.deletions {
            rows.removeValue(forKey: id)
            order.removeAll { $0 == id }
        }
        for entity in batch.writes {
            if rows[entity.id] == nil { order.append(entity.id) }
            rows[entity.id] = entity
        }
        if let newOrder = batch.order {
            let listed = Set(newOrder)
            order = newOrder.filter { rows[$0] != nil } + order.filter { !listed.contains($0) }
        }
    }

    @MainActor
    func writer<State>(_ keyPath: WritableKeyPath<State, EntityStore<Entity>>) -> StateWriter<State> {
        StateWriter(keyPath: keyPath, writeBatch: { batch in try await self.write(batch) })
    }
}
