import Testing
import SwiduxTesting
@testable import Swidux

/// `StatePatchRing` (the store's undo history) against an array that keeps at most `limit`
/// steps, through random appends, pops, edits and clears; and the reuse of the steps a full
/// history drops.
@Suite("Undo history ring")
struct StatePatchRingTests {
    /// A step tagged with `tag` (its only field value).
    static func step(_ tag: Int) -> StatePatch {
        var patch = StatePatch()
        patch.fields.append(0, tag)
        return patch
    }

    static func tag(_ patch: StatePatch) -> Int? { patch.fields[0] as? Int }

    @Test(arguments: [1, 2, 5, 16, 40])
    func behavesLikeABoundedArray(limit: Int) {
        var generator = SeededRandomNumberGenerator(seed: UInt64(limit))
        let ring = StatePatchRing(limit: limit)
        var model: [Int] = []
        var dropped: [Int] = []
        var modelDropped: [Int] = []
        var next = 0
        for _ in 0..<3_000 {
            switch Int.random(in: 0..<100, using: &generator) {
            case 0..<60:
                next += 1
                ring.append(Self.step(next)) { dropped.append(Self.tag($0) ?? -1) }
                model.append(next)
                if model.count > limit { modelDropped.append(model.removeFirst()) }
            case 60..<85:
                #expect(ring.popLast().flatMap(Self.tag) == model.popLast())
            case 85..<97 where !model.isEmpty:
                let position = Int.random(in: 0..<model.count, using: &generator)
                next += 1
                ring[position].fields[0] = next
                model[position] = next
            case 97..<100:
                ring.removeAll()
                model.removeAll()
            default:
                break
            }
            #expect(ring.count == model.count)
            #expect(ring.isEmpty == model.isEmpty)
            #expect((0..<ring.count).map { Self.tag(ring[$0]) } == model.map(Optional.some))
            #expect(dropped == modelDropped)
        }
    }

    /// A full ring drops its oldest step once the recycling took what it reuses: whatever
    /// the recycling left in the step (a field's value) is released with it, what it took
    /// (the step's store patch) lives on with the taker, and the appended steps are intact.
    @Test func droppedStepsReleaseWhatTheRecyclingLeft() {
        final class Tracked {}
        let ring = StatePatchRing(limit: 2)
        var fieldValues: [Int: Weak] = [:]
        var storePatches: [Int: Weak] = [:]
        var taken: [UndoStorePatch] = []
        for step in 0..<12 {
            var patch = StatePatch()
            let storePatch = UndoStorePatch()
            storePatches[step] = Weak(storePatch)
            patch.stores.append(0, storePatch)
            // Every third step also has a field value: the recycling leaves it in the step.
            if step % 3 == 0 {
                let value = Tracked()
                fieldValues[step] = Weak(value)
                patch.fields.append(0, value)
            }
            ring.append(patch) { dropped in
                while let (_, storePatch) = dropped.stores.popFirst() { taken.append(storePatch) }
            }
            #expect(ring.count == min(step + 1, 2))
            #expect(ring[ring.count - 1].stores[0] === storePatch)
            for dropped in 0..<max(0, step - 1) {
                #expect(fieldValues[dropped]?.object == nil, "the field value of step \(dropped)")
                #expect(storePatches[dropped]?.object != nil, "the store patch of step \(dropped), taken")
            }
        }
        taken.removeAll()
        ring.removeAll()
        #expect(storePatches.values.allSatisfy { $0.object == nil })
        #expect(fieldValues.values.allSatisfy { $0.object == nil })
    }

    /// A weak reference, for the test above.
    final class Weak {
        weak var object: AnyObject?
        init(_ object: AnyObject) { self.object = object }
    }

    /// A store with a history of 3 steps: every step after the third drops the oldest, whose
    /// buffers the next step records into. Steps of different sizes (one entity, many, more
    /// than a reused patch keeps the buffers of) alternate; undoing every step held must
    /// give back each state exactly, and redoing them the newest.
    @MainActor
    @Test func stepsDroppedFromAFullHistoryAreReusedWithoutMixingUp() async throws {
        let h = BoardHarness((0..<200).map { tile($0) }, maxDepth: 3)
        var states: [[Tile]] = [h.store.state.cards.values]
        let sizes = [1, 100, 2, 150, 1, 1, 70, 3, 1, 120, 1, 2]
        for (round, size) in sizes.enumerated() {
            h.store.send(.record { state in
                for id in 0..<size { state.cards.modify((id * 7 + round) % 200) { $0.text = "r\(round)" } }
                if round % 4 == 3 { state.cards[1_000 + round] = tile(1_000 + round) }
                if round % 5 == 4 { state.cards[(round * 13) % 200] = nil }
            })
            states.append(h.store.state.cards.values)
            #expect(h.undo.undoCount == min(round + 1, 3))
        }
        for back in 1...3 {
            h.store.undo()
            #expect(h.store.state.cards.values == states[states.count - 1 - back], "undo \(back)")
            try await h.flushAndCompare()
        }
        #expect(!h.store.canUndo)
        for forward in (0..<3).reversed() {
            h.store.redo()
            #expect(h.store.state.cards.values == states[states.count - 1 - forward], "redo to \(forward)")
        }
        try await h.flushAndCompare()
    }
}
