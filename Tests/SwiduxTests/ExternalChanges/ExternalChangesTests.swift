import Foundation
import Observation
import SwiduxTesting
import Testing
@testable import Swidux

/// Records the external batches middleware are shown.
@MainActor
final class ExternalChangesSpy: Middleware {
    typealias State = NotesState
    typealias Action = NotesAction
    var seen: [AppliedExternalChanges] = []
    func didApplyExternalChanges(_ changes: AppliedExternalChanges, state: NotesState) { seen.append(changes) }
}

@MainActor
@Suite("External changes", .timeLimit(.minutes(1)))
struct ExternalChangesTests {
    static func note(_ id: Int, _ text: String) -> Note { Note(id: id, text: text, tagID: nil) }

    @Test("Applied without being recorded: nothing is written back")
    func appliedUnrecorded() async throws {
        let h = NotesHarness()
        var changes = ExternalChanges<NotesState>(origin: "test")
        changes.upsert(Self.note(1, "a"), in: \.notes)
        changes.upsert(Self.note(2, "b"), in: \.notes)
        let applied = h.store.applyExternalChanges(changes)
        #expect(applied.upserted == 2)
        #expect(h.store.state.notes.values == [Self.note(1, "a"), Self.note(2, "b")])
        #expect(!h.persistence.hasPendingWrites)
        try await h.store.flush()
        #expect(h.notes.batches.isEmpty)

        var deletion = ExternalChanges<NotesState>(origin: "test")
        deletion.delete(1, in: \.notes)
        #expect(h.store.applyExternalChanges(deletion).deleted == 1)
        #expect(h.store.state.notes.ids == [2])
        #expect(!h.persistence.hasPendingWrites)
    }

    @Test("An id with a local change not yet flushed keeps the local value; the others take the external one")
    func pendingLocalChangeWins() async throws {
        let h = NotesHarness()
        h.store.send(.addNote(1, "one", tag: nil))
        h.store.send(.addNote(2, "two", tag: nil))
        try await h.store.flush()
        h.store.send(.edit(1, "local"))   // pending
        var changes = ExternalChanges<NotesState>(origin: "test")
        changes.upsert(Self.note(1, "remote"), in: \.notes)
        changes.upsert(Self.note(2, "remote"), in: \.notes)
        let applied = h.store.applyExternalChanges(changes)
        #expect(applied.keptLocal.compactMap { $0 as? Int } == [1])
        #expect(h.store.state.notes[1]?.text == "local")
        #expect(h.store.state.notes[2]?.text == "remote")
        try await h.store.flush()
        #expect(h.notes.stored.first { $0.id == 1 }?.text == "local")
        #expect(h.notes.batches.last?.writes == [Self.note(1, "local")])
    }

    @Test("An id in the flush in flight keeps the local value")
    func inFlightLocalChangeWins() async throws {
        let h = NotesHarness()
        let gate = Gate()
        h.notes.gate = gate
        h.store.send(.addNote(1, "local", tag: nil))
        let flush = Task { try await h.store.flush() }
        #expect(await waitUntil { h.persistence.isFlushing })
        var changes = ExternalChanges<NotesState>(origin: "test")
        changes.delete(1, in: \.notes)
        #expect(h.store.applyExternalChanges(changes).keptLocal.count == 1)
        #expect(h.store.state.notes[1]?.text == "local")
        await gate.open()
        try await flush.value
    }

    @Test("New rows take the source's position; moved rows move; a snapshot brings the source's order")
    func positions() {
        let h = NotesHarness()
        var seed = ExternalChanges<NotesState>(origin: "test")
        for id in [1, 2, 3] { seed.upsert(Self.note(id, "\(id)"), in: \.notes) }
        h.store.applyExternalChanges(seed)
        var insert = ExternalChanges<NotesState>(origin: "test")
        insert.upsert(Self.note(10, "10"), in: \.notes, before: 2)
        insert.upsert(Self.note(11, "11"), in: \.notes, before: nil)
        h.store.applyExternalChanges(insert)
        #expect(h.store.state.notes.ids == [1, 10, 2, 3, 11])
        var move = ExternalChanges<NotesState>(origin: "test")
        move.upsert(Self.note(3, "3"), in: \.notes, before: 1, moved: true)
        h.store.applyExternalChanges(move)
        #expect(h.store.state.notes.ids == [3, 1, 10, 2, 11])
        var snapshot = ExternalChanges<NotesState>(origin: "test")
        snapshot.replaceAll(with: [Self.note(2, "2"), Self.note(1, "one")], in: \.notes)
        h.store.applyExternalChanges(snapshot)
        #expect(h.store.state.notes.values == [Self.note(2, "2"), Self.note(1, "one")])
        #expect(!h.persistence.hasPendingWrites)
    }

    @Test("Row observers of the changed ids fire, the others do not")
    func rowObserversFire() {
        let h = NotesHarness()
        var seed = ExternalChanges<NotesState>(origin: "test")
        for id in [1, 2] { seed.upsert(Self.note(id, "\(id)"), in: \.notes) }
        h.store.applyExternalChanges(seed)
        let first = Recorder<Int>(), second = Recorder<Int>()
        withObservationTracking { _ = h.store.notes[1] } onChange: { first.append(1) }
        withObservationTracking { _ = h.store.notes[2] } onChange: { second.append(2) }
        var changes = ExternalChanges<NotesState>(origin: "test")
        changes.upsert(Self.note(1, "changed"), in: \.notes)
        h.store.applyExternalChanges(changes)
        #expect(first.values == [1])
        #expect(second.values.isEmpty)
    }

    @Test("Not an undo step, and undo never reverts it")
    func undoNeverRevertsExternalChanges() async {
        let h = NotesHarness(undo: UndoMiddleware(recording: \.tags, \.notes))
        h.store.send(.addNote(1, "mine", tag: nil))
        var changes = ExternalChanges<NotesState>(origin: "test")
        changes.upsert(Self.note(2, "theirs"), in: \.notes)
        h.store.applyExternalChanges(changes)
        h.store.undo()
        #expect(h.store.state.notes.values == [Self.note(2, "theirs")])
        #expect(!h.store.canUndo)
    }

    @Test("Middleware see external batches")
    func middlewareSeeBatches() {
        let spy = ExternalChangesSpy()
        let store = Store(initialState: NotesState(), reducer: NotesReducer(), environment: (),
                          middleware: [spy], persistence: PersistenceMiddleware(writers: []))
        var changes = ExternalChanges<NotesState>(origin: "elsewhere")
        changes.upsert(Self.note(1, "x"), in: \.notes)
        store.applyExternalChanges(changes)
        #expect(spy.seen.map(\.origin) == ["elsewhere"])
        #expect(spy.seen.first?.upserted == 1)
    }

    @Test("Randomized: applyExternal equals a reference model and keeps the store's invariants",
          arguments: [1, 2, 3, 4] as [UInt64])
    func randomizedAgainstModel(seed: UInt64) {
        var rng = SeededRandomNumberGenerator(seed: seed)
        let rounds = Int(ProcessInfo.processInfo.environment["SWIDUX_EXTERNAL_ROUNDS"] ?? "") ?? 300
        var store = EntityStore<Note>()
        var model: [Note] = []
        for round in 0..<rounds {
            var deletions: [Int] = []
            var upserts: [ExternalUpsert<Note>] = []
            var touched = Set<Int>()
            for _ in 0..<Int.random(in: 0...6, using: &rng) {
                let id = Int.random(in: 0..<30, using: &rng)
                guard touched.insert(id).inserted else { continue }
                if Bool.random(using: &rng), model.contains(where: { $0.id == id }) {
                    deletions.append(id)
                } else {
                    let successor = Bool.random(using: &rng) ? nil : model.randomElement(using: &rng)?.id
                    upserts.append(ExternalUpsert(entity: Self.note(id, "r\(round)"), successors: successor.map { [$0] } ?? [],
                                                  moved: Int.random(in: 0..<4, using: &rng) == 0))
                }
            }
            // The model: deletions, in-place updates, then each placed run before its successor.
            model.removeAll { deletions.contains($0.id) }
            var placed: [Note] = []
            for upsert in upserts {
                if let index = model.firstIndex(where: { $0.id == upsert.entity.id }) {
                    model[index] = upsert.entity
                    if upsert.moved { placed.append(upsert.entity) }
                } else {
                    placed.append(upsert.entity)
                }
            }
            let placedIDs = Set(placed.map(\.id))
            model.removeAll { placedIDs.contains($0.id) }
            var run: [Note] = []
            for upsert in upserts where placedIDs.contains(upsert.entity.id) {
                run.append(upsert.entity)
                if let successor = upsert.successors.first, placedIDs.contains(successor) { continue }
                if let successor = upsert.successors.first, let index = model.firstIndex(where: { $0.id == successor }) {
                    model.insert(contentsOf: run, at: index)
                } else {
                    model += run
                }
                run = []
            }
            model += run
            let copy = store   // another holder of the storage: the edit must not touch it
            store.applyExternal(deletions: deletions.filter { id in upserts.allSatisfy { $0.entity.id != id } },
                                upserts: upserts, order: nil)
            #expect(store.values == model, "seed \(seed) round \(round)")
            #expect(store.changes.isEmpty)
            #expect(store._invariantViolation() == nil)
            _ = copy
        }
    }
}
