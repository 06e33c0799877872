import Foundation
import Testing
@testable import Swidux

/// Complexity checks that count work instead of timing it (speed targets belong in the
/// benchmarks): deletes must not re-index nor shift, and compactions must stay rare.
@Suite("EntityStore complexity", .timeLimit(.minutes(1)))
struct EntityStoreComplexityTests {
    struct Row: Identifiable, Equatable, Sendable {
        let id: Int
        var value: Int
    }

    @Test func deletingAllInRandomOrderIsLinear() {
        let n = 100_000
        var store = EntityStore((0..<n).map { Row(id: $0, value: $0) })
        var rng = EntityStoreModelTests.SplitMix64(seed: 0xDE1E7E)
        var order = Array(0..<n)
        order.shuffle(using: &rng)

        var compactions = 0
        for (done, id) in order.enumerated() {
            store[id] = nil
            if store._compactionCount != compactions {
                compactions = store._compactionCount
                store._checkInvariants()
            }
            if done % 10_000 == 0, !store.isEmpty {
                // Positional reads in between: the map is built at most once per layout.
                #expect(store[position: store.count / 2] == store.values[store.count / 2])
            }
        }

        #expect(store.isEmpty)
        #expect(store.values.isEmpty)
        #expect(store.changes.deleted.count == n)
        store._checkInvariants()
        // The live count at least halves between two compactions: at most log2(n) + 1 of them…
        #expect(store._compactionCount <= Int(log2(Double(n))) + 2)
        // …and the slots they sweep add up to at most 2n: linear in n overall.
        #expect(store._compactionWork <= 2 * n)
    }

    @Test func churnKeepsTheSlotsBoundedAndCompactionsRare() {
        let live = 1_000
        var store = EntityStore((0..<live).map { Row(id: $0, value: 0) })
        var rng = EntityStoreModelTests.SplitMix64(seed: 0xC4)
        var ids = Array(0..<live)
        var nextID = live
        let deletes = 200_000
        var maxTombstones = 0
        for _ in 0..<deletes {
            let victim = Int.random(in: 0..<ids.count, using: &rng)
            store[ids[victim]] = nil
            ids.swapAt(victim, ids.count - 1)
            ids.removeLast()
            store[nextID] = Row(id: nextID, value: 1)
            ids.append(nextID)
            nextID += 1
            maxTombstones = max(maxTombstones, store._tombstoneCount)
        }
        #expect(maxTombstones <= 2 * live)
        store._checkInvariants()
        #expect(store.count == live)
        // A compaction needs more than `2 × live` deletes since the previous one.
        #expect(store._compactionCount <= deletes / (2 * live) + 1)
        #expect(store._compactionWork <= 2 * deletes)
        #expect(Set(store.ids) == Set(ids))
    }

    @Test func uuidIDsDeleteInRandomOrder() {
        struct Note: Identifiable, Equatable, Sendable {
            let id: UUID
            var text: String
        }
        let notes = (0..<20_000).map { Note(id: UUID(), text: "\($0)") }
        var store = EntityStore(notes)
        var rng = EntityStoreModelTests.SplitMix64(seed: 7)
        for note in notes.shuffled(using: &rng) { store[note.id] = nil }
        #expect(store.isEmpty)
        #expect(store._compactionWork <= 2 * notes.count)
        store._checkInvariants()
    }
}
