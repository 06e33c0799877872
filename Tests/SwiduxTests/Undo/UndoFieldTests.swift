import Foundation
import Observation
import Testing
@testable import Swidux
import SwiduxTesting

/// A persisted entity with two fields (`Codable`, as persisted entities are).
struct Chore: Identifiable, Equatable, Sendable, Codable {
    let id: Int
    var title: String
    var done = false
    var note: String?
}

struct ChoreState: Equatable, Sendable {
    var chores = EntityStore<Chore>()
    var title = ""
    var ui = 0
}

struct ChoreAction: Sendable, UndoableAction {
    let undoPolicy: UndoPolicy
    let mutate: @Sendable (inout ChoreState) -> Void

    static func record(_ mutate: @escaping @Sendable (inout ChoreState) -> Void) -> ChoreAction { .init(undoPolicy: .record, mutate: mutate) }
    static func skip(_ mutate: @escaping @Sendable (inout ChoreState) -> Void) -> ChoreAction { .init(undoPolicy: .skip, mutate: mutate) }
}

@MainActor
let choreReducer = Reduce<ChoreState, ChoreAction, Void> { state, action, _ in
    action.mutate(&state)
    return nil
}

/// A chore store persisted into an `InMemoryBackend`, undo recording `\.chores` and `\.title`.
@MainActor
struct ChoreHarness {
    let backend: InMemoryBackend<Chore>
    let undo: UndoMiddleware<ChoreState>
    let store: Store<ChoreState, ChoreAction>

    init(_ rows: [Chore], maxDepth: Int = 100) {
        backend = InMemoryBackend(rows)
        undo = UndoMiddleware(maxDepth: maxDepth, recording: \.chores, \.title)
        let persistence = PersistenceMiddleware<ChoreState>(writers: [backend.stateWriter(for: \.chores)])
        store = Store(initialState: ChoreState(chores: EntityStore(rows)), reducer: choreReducer, environment: (),
                      persistence: persistence, undo: undo)
    }

    /// Another writer sets chore `id`'s `done` (after a flush: no local change pending).
    func externallyMarkDone(_ id: Int) async throws {
        try await store.flush()
        var changes = ExternalChanges<ChoreState>(origin: "todos done")
        var chore = try #require(store.state.chores[id])
        chore.done = true
        changes.upsert(chore, in: \.chores)
        store.applyExternalChanges(changes)
    }
}

struct OverlapData: Sendable { var chores = EntityStore<Chore>(); var count = 0 }
struct OverlapState: Sendable { var data = OverlapData(); var ui = 0 }

@MainActor
@Suite("Undo field by field, no phantom steps, hooks", .timeLimit(.minutes(1)))
struct UndoFieldTests {
    // MARK: Item 1 — the app names what is undoable

    @Test func namingAPartAndAPartInsideItStopsWithAMessage() async {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            await MainActor.run { _ = UndoMiddleware<OverlapState>(recording: \.data, \.data.chores) }
        }
        let message = String(decoding: result?.standardErrorContent ?? [], as: UTF8.self)
        #expect(message.contains("overlap"))
        #expect(message.contains("name each undoable part once"))
    }

    // MARK: Item 2 — only the fields the step changed

    @Test func undoOfARenameKeepsAnotherWritersDoneAndRedoMirrorsIt() async throws {
        let h = ChoreHarness([Chore(id: 1, title: "milk"), Chore(id: 2, title: "eggs")])
        h.store.send(.record { $0.chores.modify(1) { $0.title = "oat milk" } })
        try await h.externallyMarkDone(1)
        #expect(h.store.state.chores[1] == Chore(id: 1, title: "oat milk", done: true))
        h.store.undo()
        #expect(h.store.state.chores[1] == Chore(id: 1, title: "milk", done: true))   // done kept
        h.store.redo()
        #expect(h.store.state.chores[1] == Chore(id: 1, title: "oat milk", done: true))
        try await h.store.flush()
        #expect(h.backend.rows.first { $0.id == 1 } == Chore(id: 1, title: "oat milk", done: true))
    }

    @Test func undoOfARenameKeepsASkippedActionsChangeToAnotherField() {
        let h = ChoreHarness([Chore(id: 1, title: "milk")])
        h.store.send(.record { $0.chores.modify(1) { $0.title = "oat milk"; $0.note = "2 l" } })
        h.store.send(.skip { $0.chores.modify(1) { $0.done = true } })
        h.store.undo()
        #expect(h.store.state.chores[1] == Chore(id: 1, title: "milk", done: true, note: nil))
        h.store.send(.skip { $0.chores.modify(1) { $0.done = false } })
        h.store.redo()
        #expect(h.store.state.chores[1] == Chore(id: 1, title: "oat milk", done: false, note: "2 l"))
    }

    @Test func aFieldTheStepChangedGoesBackEvenIfChangedSince() {
        let h = ChoreHarness([Chore(id: 1, title: "milk")])
        h.store.send(.record { $0.chores.modify(1) { $0.title = "oat milk" } })
        h.store.send(.skip { $0.chores.modify(1) { $0.title = "soy milk"; $0.done = true } })
        h.store.undo()
        #expect(h.store.state.chores[1] == Chore(id: 1, title: "milk", done: true))
    }

    @Test func aStateWithoutEntityStoresUndoesOnlyTheNamedFieldsTheStepChanged() {
        struct Plain: Sendable { var a = 0; var b = ""; var ui = 0 }
        struct PlainAction: Sendable, UndoableAction {
            let undoPolicy: UndoPolicy
            let mutate: @Sendable (inout Plain) -> Void
        }
        let reducer = Reduce<Plain, PlainAction, Void> { state, action, _ in action.mutate(&state); return nil }
        let store = Store(initialState: Plain(), reducer: reducer, environment: (), undo: UndoMiddleware(recording: \.a, \.b))
        store.send(PlainAction(undoPolicy: .record) { $0.a = 1 })
        store.send(PlainAction(undoPolicy: .skip) { $0.ui = 7; $0.b = "typed" })
        store.undo()
        #expect(store.state.a == 0)
        #expect(store.state.ui == 7)        // the skipped action's UI change stays
        #expect(store.state.b == "typed")   // another named field the step did not change stays
        store.redo()
        #expect(store.state.a == 1)
        #expect(store.state.ui == 7)
    }

    @Test func partsNotNamedAreNeverTouchedByUndo() {
        let h = ChoreHarness([Chore(id: 1, title: "milk")])
        h.store.send(.record { $0.chores[2] = Chore(id: 2, title: "eggs"); $0.ui = 2 })   // adds and selects
        h.store.send(.skip { $0.ui = 5 })
        h.store.undo()
        #expect(h.store.state.chores.ids == [1])
        #expect(h.store.state.ui == 5)
    }

    @Test func aNestedKeyPathIsRecordedByPatches() {
        struct Data: Sendable { var chores = EntityStore<Chore>(); var name = "" }
        struct Nested: Sendable { var data = Data(); var ui = 0 }
        struct NestedAction: Sendable { let mutate: @Sendable (inout Nested) -> Void }
        let reducer = Reduce<Nested, NestedAction, Void> { state, action, _ in action.mutate(&state); return nil }
        let store = Store(initialState: Nested(data: Data(chores: [Chore(id: 1, title: "a")])), reducer: reducer,
                          environment: (), undo: UndoMiddleware(recording: \.data.chores))
        let before = store.state.data.chores.storageIdentity
        store.send(NestedAction { $0.data.chores.modify(1) { $0.title = "b" }; $0.ui = 1; $0.data.name = "n" })
        #expect(store.state.data.chores.storageIdentity == before)   // in place: recorded by patches
        store.undo()
        #expect(store.state.data.chores[1]?.title == "a")
        #expect(store.state.ui == 1)
        #expect(store.state.data.name == "n")
    }

    @Test func withoutRecordingTheWholeStateIsRestored() {
        let store = Store(initialState: ChoreState(), reducer: choreReducer, environment: (), undo: UndoMiddleware())
        store.send(.record { $0.title = "t" })
        store.send(.skip { $0.ui = 3 })
        store.undo()
        #expect(store.state.title == "")
        #expect(store.state.ui == 0)   // snapshot mode: documented, `recording:` avoids it
    }

    // MARK: Item 3 — no phantom steps

    @Test(arguments: ["delete and re-insert", "insert then delete", "sort back", "same value", "title same"])
    func anActionWithNoNetEffectRecordsNoStep(kind: String) {
        let h = ChoreHarness((1...4).map { Chore(id: $0, title: "c\($0)") })
        h.store.send(.record { $0.title = "first" })
        let mutate: @Sendable (inout ChoreState) -> Void = switch kind {
        case "delete and re-insert": { state in
            let chore = state.chores[4]!
            state.chores[4] = nil
            state.chores[4] = chore
        }
        case "insert then delete": { state in
            state.chores[9] = Chore(id: 9, title: "new")
            state.chores[9] = nil
        }
        case "sort back": { state in
            state.chores.sort { $0.id > $1.id }
            state.chores.sort { $0.id < $1.id }
        }
        case "same value": { state in state.chores.modify(2) { $0.title = "x" }; state.chores.modify(2) { $0.title = "c2" } }
        default: { state in state.title = "first" }
        }
        h.store.send(.record(mutate))
        #expect(h.undo.undoCount == 1, "\(kind) recorded a step")
        h.store.undo()
        #expect(h.store.state.title == "")   // the first undo undoes the real step
        #expect(!h.store.canUndo)
    }

    @Test func testStoreUndoAfterANoOpActionUndoesTheRealStep() async {
        let store = TestStore(initialState: ChoreState(chores: [Chore(id: 1, title: "a")]), reducer: choreReducer,
                              environment: (), undo: UndoMiddleware(recording: \.chores, \.title))
        await store.send(.record { $0.title = "t" }) { $0.title = "t" }
        await store.send(.record { state in
            let chore = state.chores[1]!
            state.chores[1] = nil
            state.chores[1] = chore
        })
        await store.undo { $0.title = "" }
        #expect(!store.canUndo)
    }

    // MARK: Item 4 — undo from a hook of a skipped action

    @Test func anUndoFromAHookOfASkippedActionIsApplied() {
        final class UndoOnSkip: Middleware {
            var store: Store<ChoreState, ChoreAction>?
            func afterReduce(state: inout ChoreState, action: ChoreAction) {
                if action.undoPolicy == .skip, state.ui == 1 { store?.undo() }
            }
        }
        let hook = UndoOnSkip()
        let store = Store(initialState: ChoreState(), reducer: choreReducer, environment: (),
                          middleware: [hook], undo: UndoMiddleware(recording: \.chores, \.title))
        hook.store = store
        store.send(.record { $0.title = "a" })
        store.send(.record { $0.title = "b" })
        store.send(.skip { $0.ui = 1 })
        #expect(store.state.title == "a")   // applied, not overwritten by the hook's copy
        #expect(store.state.ui == 1)
        #expect(store.canRedo)
        store.undo()
        #expect(store.state.title == "")    // a state that existed
        store.redo()
        store.redo()
        #expect(store.state.title == "b")
    }

    // MARK: Item 5 — removeAll notifies

    @Test func removeAllNotifiesTheReadersOfCanUndo() {
        let h = ChoreHarness([])
        h.store.send(.record { $0.title = "t" })
        h.store.send(.record { $0.title = "u" })
        h.store.undo()
        #expect(h.store.canUndo && h.store.canRedo)
        let notified = Recorder<Int>()
        withObservationTracking { _ = h.store.canUndo } onChange: { notified.append(1) }
        h.undo.removeAll()
        #expect(notified.values == [1])
        #expect(!h.store.canUndo && !h.store.canRedo)
    }
}
