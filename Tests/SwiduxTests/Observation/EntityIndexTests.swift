import Foundation
import Observation
import SwiduxTesting
import Testing
@testable import Swidux

/// The group of a tile: the first letter of its text ("a", "b" or "c").
let tilesByLetter = EntityIndex(\BoardState.cards) { $0.text.first ?? "-" }

/// What the index must hold: the groups recomputed from the entity store.
func recomputedGroups(_ cards: EntityStore<Tile>) -> [Character: [Int]] {
    var groups: [Character: [Int]] = [:]
    for card in cards { groups[card.text.first ?? "-", default: []].append(card.id) }
    return groups
}

@MainActor
@Suite("Entity index", .timeLimit(.minutes(2)))
struct EntityIndexTests {
    nonisolated static let steps = Int(ProcessInfo.processInfo.environment["SWIDUX_ENTITY_INDEX_STEPS"] ?? "") ?? 300
    nonisolated static let seeds: [UInt64] = ProcessInfo.processInfo.environment["SWIDUX_ENTITY_INDEX_SEED"]
        .flatMap(UInt64.init).map { [$0] } ?? [1, 2, 3, 4]

    @Test("Groups are the ids of each key in the store's order; a read without change returns them as they are")
    func groups() {
        let index = EntityIndex(\BoardState.cards) { $0.text.first ?? "-" }
        var state = BoardState(cards: EntityStore([tile(1, "a1"), tile(2, "b2"), tile(3, "a3")]))
        #expect(index(state) == ["a": [1, 3], "b": [2]])
        #expect(index(state) == ["a": [1, 3], "b": [2]])
        #expect(index.counts.rebuilds == 1 && index.counts.updates == 0)
        state.cards[4] = tile(4, "c4")
        #expect(index(state) == ["a": [1, 3], "b": [2], "c": [4]])
        #expect(index.counts.rebuilds == 1 && index.counts.updates == 1)
    }

    @Test("A change that keeps the key moves nothing; one that changes it moves the id to its place in the other group")
    func keyChange() {
        let index = EntityIndex(\BoardState.cards) { $0.text.first ?? "-" }
        var state = BoardState(cards: EntityStore((1...6).map { tile($0, $0 % 2 == 0 ? "a\($0)" : "b\($0)") }))
        #expect(index(state) == ["a": [2, 4, 6], "b": [1, 3, 5]])
        state.cards.modify(4) { $0.text = "a-renamed" }
        #expect(index(state) == ["a": [2, 4, 6], "b": [1, 3, 5]])
        state.cards.modify(3) { $0.text = "a3" }
        #expect(index(state) == ["a": [2, 3, 4, 6], "b": [1, 5]])
        state.cards.modify(1) { $0.text = "c1" }
        state.cards.modify(5) { $0.text = "c5" }
        #expect(index(state) == ["a": [2, 3, 4, 6], "c": [1, 5]])
        #expect(index.counts.rebuilds == 1 && index.counts.updates == 3)
    }

    @Test("A deleted and re-inserted id goes to the end of its group; a reorder rebuilds")
    func membershipAndOrder() {
        let index = EntityIndex(\BoardState.cards) { $0.text.first ?? "-" }
        var state = BoardState(cards: EntityStore([tile(1, "a1"), tile(2, "a2"), tile(3, "a3")]))
        _ = index(state)
        state.cards[1] = nil
        state.cards[1] = tile(1, "a1")
        #expect(index(state) == ["a": [2, 3, 1]])
        #expect(index.counts.rebuilds == 1 && index.counts.updates == 1)
        state.cards.sort { $0.id < $1.id }
        #expect(index(state) == ["a": [1, 2, 3]])
        #expect(index.counts.rebuilds == 2 && index.counts.updates == 1)
    }

    @Test("Read through a store, it observes its entity store only")
    func observation() {
        let h = BoardHarness([tile(1, "a1"), tile(2, "b2")])
        let fired = Tally()
        withObservationTracking { _ = h.store[tilesByLetter] } onChange: { fired.add() }
        h.store.send(.record { $0.ui.selection = 2 })
        #expect(fired.count == 0)
        h.store.send(.record { $0.cards.modify(1) { $0.text = "b1" } })
        #expect(fired.count == 1)
        #expect(h.store[tilesByLetter] == ["b": [1, 2]])
    }

    /// Random edits through a store with persistence and undo, with a row observer (whose
    /// store trims the log after each dispatch), compared with the recomputation.
    @Test("Equals the recomputed groups after random edits", arguments: seeds)
    func model(seed: UInt64) async throws {
        var rng = SeededRandomNumberGenerator(seed: seed)
        let index = EntityIndex(\BoardState.cards) { $0.text.first ?? "-" }
        func randomText(_ id: Int) -> String { "\(["a", "b", "c"].randomElement(using: &rng)!)\(id)-\(Int.random(in: 0..<9, using: &rng))" }
        let h = BoardHarness((0..<40).map { tile($0, ["a", "b", "c"][$0 % 3] + "\($0)") })
        var nextID = 40
        var snapshots: [EntityStore<Tile>] = []
        var history: [String] = []
        for step in 0..<Self.steps {
            let ids = h.store.state.cards.ids
            let some = ids.randomElement(using: &rng)
            var description = ""
            switch Int.random(in: 0..<100, using: &rng) {
            case 0..<18:
                let count = Int.random(in: 1...3, using: &rng)
                var new: [Tile] = []
                for _ in 0..<count { new.append(tile(nextID, randomText(nextID))); nextID += 1 }
                let added = new
                description = "insert \(added.map(\.id))"
                h.store.send(.record { for t in added { $0.cards[t.id] = t } })
            case 18..<40:
                guard let id = some else { continue }
                let text = randomText(id)
                description = "modify \(id) → \(text)"
                h.store.send(.record { $0.cards.modify(id) { $0.text = text } })
            case 40..<50:
                let chosen = Array(ids.shuffled(using: &rng).prefix(Int.random(in: 1...4, using: &rng)))
                let texts = chosen.map { randomText($0) }
                description = "modify several \(chosen)"
                h.store.send(.record { for (id, text) in zip(chosen, texts) { $0.cards.modify(id) { $0.text = text } } })
            case 50..<60:
                guard let id = some else { continue }
                description = "delete \(id)"
                h.store.send(.record { $0.cards[id] = nil })
            case 60..<64:
                guard ids.count > 1 else { continue }
                let from = Int.random(in: 0..<ids.count, using: &rng), to = Int.random(in: 0...ids.count, using: &rng)
                description = "move \(from) → \(to)"
                h.store.send(.record { $0.cards.move(fromOffsets: [from], toOffset: to) })
            case 64..<66:
                let ascending = Bool.random(using: &rng)
                description = "sort \(ascending)"
                h.store.send(.record { $0.cards.sort { ascending ? $0.text < $1.text : $0.text > $1.text } })
            case 66..<69:
                let letter: Character = ["a", "b", "c"].randomElement(using: &rng)!
                description = "removeAll(where: \(letter))"
                h.store.send(.record { $0.cards.removeAll { $0.text.first == letter && $0.id % 2 == 0 } })
            case 69:
                description = "removeAll()"
                h.store.send(.record { $0.cards.removeAll() })
            case 70..<74:
                snapshots.append(h.store.state.cards)
                guard let snapshot = snapshots.randomElement(using: &rng) else { continue }
                description = "restore (\(snapshot.count) cards)"
                h.store.send(.record { $0.cards.restore(from: snapshot) })
            case 74..<82:
                description = "undo"
                h.store.undo()
            case 82..<86:
                description = "redo"
                h.store.redo()
            case 86..<96:
                var changes = ExternalChanges<BoardState>(origin: "model")
                var parts: [String] = []
                for _ in 0..<Int.random(in: 1...3, using: &rng) {
                    switch Int.random(in: 0..<4, using: &rng) {
                    case 0:
                        let new = tile(nextID, randomText(nextID))
                        nextID += 1
                        let before = Bool.random(using: &rng) ? ids.randomElement(using: &rng) : nil
                        changes.upsert(new, in: \.cards, before: before)
                        parts.append("upsert new \(new.id) before \(before.map(String.init) ?? "end")")
                    case 1:
                        guard let id = ids.randomElement(using: &rng) else { continue }
                        changes.upsert(tile(id, randomText(id)), in: \.cards)
                        parts.append("upsert \(id)")
                    case 2:
                        guard let id = ids.randomElement(using: &rng), let current = h.store.state.cards[id] else { continue }
                        let before = ids.randomElement(using: &rng)
                        changes.upsert(current, in: \.cards, before: before == id ? nil : before, moved: true)
                        parts.append("move \(id) before \(before.map(String.init) ?? "end")")
                    default:
                        guard let id = ids.randomElement(using: &rng) else { continue }
                        changes.delete(id, in: \.cards)
                        parts.append("external delete \(id)")
                    }
                }
                description = "external: " + parts.joined(separator: ", ")
                h.store.applyExternalChanges(changes)
            default:
                description = "flush"
                try await h.store.flush()
            }
            history.append(description)
            // A row observer, so that the store trims the log after each dispatch.
            if let id = h.store.state.cards.ids.first {
                withObservationTracking { _ = h.store.cards[id] } onChange: {}
            }
            // Read most of the time (as a view does), sometimes not (the index falls behind).
            guard Int.random(in: 0..<10, using: &rng) > 0 else { continue }
            let read = Bool.random(using: &rng) ? h.store[index] : index(h.store.state)
            let expected = recomputedGroups(h.store.state.cards)
            if read != expected {
                Issue.record("seed \(seed), step \(step) (\(description)): \(read) ≠ \(expected)\nlast steps: \(history.suffix(10))")
                return
            }
        }
        let counts = index.counts
        // The incremental path did most of the work (the test shows it, not only equality).
        #expect(counts.updates > counts.rebuilds, "rebuilds \(counts.rebuilds), updates \(counts.updates)")
    }
}
