import Testing
import SwiduxTesting
@testable import Swidux

/// `PendingWrites` (a writer's pending entities, found by slot hints) against a model: a
/// dictionary of latest values and the order ids were first recorded in. Slot hints are
/// random, often wrong or stale (the store's slots move), and must never cause a wrong
/// match.
@Suite("Pending writes")
struct PendingWritesTests {
    struct Row: Identifiable, Equatable, Sendable {
        let id: String
        var value: Int
    }

    @Test(arguments: [1, 2, 3, 4])
    func matchesAModelWhateverTheSlotHints(seed: UInt64) {
        var generator = SeededRandomNumberGenerator(seed: seed)
        var pending = PendingWrites<Row>()
        var latest: [String: (value: Int, insertion: Bool)] = [:]
        var order: [String] = []
        // Canonically equivalent ids are different ids to the writer only if `==` says so:
        // "é" precomposed and decomposed are equal Strings, so they are one id.
        let ids = ["a", "b", "c", "d", "e", "f", "\u{E9}", "g", "h"]
        // The slot each id "lives" in; reshuffled now and then (compaction, sort, replacement).
        var slots = Dictionary(uniqueKeysWithValues: ids.enumerated().map { ($1, $0) })
        for step in 0..<4_000 {
            let id = Int.random(in: 0..<10, using: &generator) == 0 ? "e\u{301}" : ids.randomElement(using: &generator)!
            let canonical = ids.first { $0 == id }!
            switch Int.random(in: 0..<100, using: &generator) {
            case 0..<65:
                let insertion = Bool.random(using: &generator)
                let slot: Int
                switch Int.random(in: 0..<10, using: &generator) {
                case 0: slot = -1
                case 1: slot = Int.random(in: 0..<20, using: &generator)   // a wrong hint
                default: slot = slots[canonical]!
                }
                pending.record(Row(id: id, value: step), insertion: insertion, slot: slot)
                if let existing = latest[canonical] {
                    latest[canonical] = (step, existing.insertion || insertion)
                } else {
                    latest[canonical] = (step, insertion)
                    order.append(canonical)
                }
            case 65..<85:
                let removed = pending.remove(id)
                #expect((removed?.entity.value) == latest[canonical]?.value)
                if latest.removeValue(forKey: canonical) != nil { order.removeAll { $0 == canonical } }
            case 85..<90:
                pending.removeAll()
                latest.removeAll()
                order.removeAll()
            default:
                let shuffled = ids.shuffled(using: &generator)
                slots = Dictionary(uniqueKeysWithValues: shuffled.enumerated().map { ($1, $0) })
            }
            #expect(pending.count == latest.count)
            #expect(pending.isEmpty == latest.isEmpty)
            let entries = pending.ordered
            #expect(entries.count == order.count)
            #expect(entries.map(\.entity.value) == order.map { latest[$0]!.value })
            #expect(entries.map(\.isInsertion) == order.map { latest[$0]!.insertion })
            for candidate in ids {
                #expect(pending[candidate]?.entity.value == latest[candidate]?.value)
            }
        }
    }
}
