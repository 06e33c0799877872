import Foundation
import Testing
@testable import Swidux
import SwiduxTesting

/// The storage moves entities with unsafe pointers (compaction moves each live entity over a
/// tombstone) and destroys tombstones one by one: every entity must be kept exactly once, and
/// destroyed when it leaves. Each entity here owns an object that counts its instances.
@Suite("EntityStore entity lifetimes", .timeLimit(.minutes(1)))
struct EntityStoreLifetimeTests {
    /// Counts the tokens alive (one test, one thread: no lock needed).
    final class Census: @unchecked Sendable {
        var alive = 0
    }

    final class Token: @unchecked Sendable {
        let census: Census
        init(_ census: Census) {
            self.census = census
            census.alive += 1
        }
        deinit { census.alive -= 1 }
    }

    struct Payload: Identifiable, Equatable, Sendable {
        let id: String
        var title: String
        let token: Token
        static func == (a: Payload, b: Payload) -> Bool { a.id == b.id && a.title == b.title && a.token === b.token }
    }

    @Test(arguments: [UInt64(1), 2, 3])
    func everyEntityIsKeptOnceAndDestroyedWhenItLeaves(seed: UInt64) {
        let census = Census()
        do {
            var rng = SeededRandomNumberGenerator(seed: seed)
            var store = EntityStore<Payload>()
            var model: [String: String] = [:]
            var order: [String] = []
            func make(_ n: Int) -> Payload { Payload(id: "id-\(n)", title: "t\(n)", token: Token(census)) }
            var next = 0
            var compacted = false
            for step in 0..<3_000 {
                switch Int.random(in: 0..<100, using: &rng) {
                case 0..<35:
                    let payload = make(next)
                    next += 1
                    store[payload.id] = payload
                    model[payload.id] = payload.title
                    order.append(payload.id)
                case 35..<80:
                    // Deletes dominate: tombstones pile up, pop off the end and get compacted.
                    guard let id = order.randomElement(using: &rng) else { continue }
                    store[id] = nil
                    model[id] = nil
                    order.removeAll { $0 == id }
                case 80..<88:
                    guard let id = order.randomElement(using: &rng) else { continue }
                    store.modify(id) { $0.title += "!" }
                    model[id]! += "!"
                case 88..<92:
                    store.sort { $0.id < $1.id }
                    order.sort()
                case 92..<96:
                    let parity = Int.random(in: 0..<3, using: &rng)
                    store.removeAll { $0.title.count % 3 == parity }
                    order.removeAll { model[$0]!.count % 3 == parity }
                    model = model.filter { order.contains($0.key) }
                default:
                    // Replaced by a new entity (a new token) under the same id.
                    guard let id = order.randomElement(using: &rng) else { continue }
                    store[id] = Payload(id: id, title: model[id]!, token: Token(census))
                }
                #expect(census.alive == store.count, "seed \(seed) step \(step): \(census.alive) tokens for \(store.count) entities")
                #expect(store.ids == order, "seed \(seed) step \(step)")
                #expect(store.values.map(\.title) == order.map { model[$0]! }, "seed \(seed) step \(step)")
                #expect(store._invariantViolation() == nil, "seed \(seed) step \(step): \(store._invariantViolation() ?? "")")
                if store._compactionCount > 0 { compacted = true }
                if census.alive != store.count || store.ids != order { return }
            }
            #expect(compacted)
            _ = store.drainChanges()
        }
        #expect(census.alive == 0)
    }
}
