import Foundation
import Testing
@testable import Swidux
import SwiduxTesting

struct Tile: Identifiable, Equatable, Sendable {
    let id: Int
    var text: String
}

func tile(_ id: Int, _ text: String = "") -> Tile { Tile(id: id, text: text.isEmpty ? "c\(id)" : text) }

struct BoardUI: Equatable, Sendable {
    var selection: Int?
    var filter = ""
}

struct BoardState: Sendable {
    var cards = EntityStore<Tile>()
    var ui = BoardUI()
    var title = ""
}

/// A mutation of the board with its undo policy (tests describe the reduce inline).
struct BoardAction: Sendable, UndoableAction {
    let undoPolicy: UndoPolicy
    let mutate: @Sendable (inout BoardState) -> Void

    static func record(_ mutate: @escaping @Sendable (inout BoardState) -> Void) -> BoardAction { .init(undoPolicy: .record, mutate: mutate) }
    static func coalesce(_ mutate: @escaping @Sendable (inout BoardState) -> Void) -> BoardAction { .init(undoPolicy: .coalesce, mutate: mutate) }
    static func skip(_ mutate: @escaping @Sendable (inout BoardState) -> Void) -> BoardAction { .init(undoPolicy: .skip, mutate: mutate) }
}

@MainActor
let boardReducer = Reduce<BoardState, BoardAction, Void> { state, action, _ in
    action.mutate(&state)
    return nil
}

/// A board store persisted into an `InMemoryBackend`, hydrated from its rows.
@MainActor
struct BoardHarness {
    let backend: InMemoryBackend<Tile>
    let undo: UndoMiddleware<BoardState>
    let store: Store<BoardState, BoardAction>

    init(_ rows: [Tile], maxDepth: Int = 100) {
        backend = InMemoryBackend(rows)
        undo = UndoMiddleware(maxDepth: maxDepth, recording: \.cards, \.ui, \.title)
        let persistence = PersistenceMiddleware<BoardState>(writers: [backend.stateWriter(for: \.cards)])
        store = Store(initialState: BoardState(cards: EntityStore(rows)), reducer: boardReducer, environment: (),
                      persistence: persistence, undo: undo)
    }

    var ids: [Int] { store.state.cards.ids }

    /// Undoes the last step, expecting `before` (state and rows), then redoes it, expecting `after`.
    func expectUndoRedo(before: [Tile], after: [Tile], sourceLocation: SourceLocation = #_sourceLocation) async throws {
        store.undo()
        #expect(store.state.cards.values == before, sourceLocation: sourceLocation)
        try await flushAndCompare(sourceLocation: sourceLocation)
        store.redo()
        #expect(store.state.cards.values == after, sourceLocation: sourceLocation)
        try await flushAndCompare(sourceLocation: sourceLocation)
    }

    /// Flushes and checks that the backend holds exactly the state's rows, in order.
    func flushAndCompare(sourceLocation: SourceLocation = #_sourceLocation) async throws {
        try await store.flush()
        #expect(backend.rows == store.state.cards.values, sourceLocation: sourceLocation)
    }
}

@MainActor
@Suite("Undo by patches", .timeLimit(.minutes(1)))
struct UndoPatchTests {
    // MARK: The interleaving rule

    @Test func undoRevertsOnlyWhatItsStepChangedAndRedoMirrorsIt() async throws {
        let h = BoardHarness([tile(1, "one"), tile(2, "two")])
        h.store.send(.record { $0.cards.modify(1) { $0.text = "A" } })                          // A
        h.store.send(.skip { $0.cards.modify(2) { $0.text = "B" }; $0.ui.selection = 2 })       // B
        try await h.flushAndCompare()
        _ = h.backend.takeBatches()

        h.store.undo()
        #expect(h.store.state.cards.values == [tile(1, "one"), tile(2, "B")])
        #expect(h.store.state.ui.selection == 2)
        try await h.flushAndCompare()
        #expect(h.backend.takeBatches() == [.init(writes: [tile(1, "one")], insertions: [])])   // exactly what undo touched

        h.store.redo()
        #expect(h.store.state.cards.values == [tile(1, "A"), tile(2, "B")])
        #expect(h.store.state.ui.selection == 2)
        try await h.flushAndCompare()
        #expect(h.backend.takeBatches() == [.init(writes: [tile(1, "A")], insertions: [])])
        #expect(!h.store.canRedo)
    }

    @Test func aFieldChangedLaterByASkippedActionKeepsItsValueUnlessTheStepChangedIt() {
        let h = BoardHarness([])
        h.store.send(.record { $0.title = "Groceries" })
        h.store.send(.skip { $0.ui.filter = "milk"; $0.title = "Shopping" })
        h.store.undo()
        #expect(h.store.state.title == "")            // the step changed it: back to before the step
        #expect(h.store.state.ui.filter == "milk")    // the step did not: B's value stays
        h.store.redo()
        #expect(h.store.state.title == "Shopping")    // redo puts back what undo replaced
        #expect(h.store.state.ui.filter == "milk")
    }

    @Test func aStepThatChangedNothingLeavesNothingToTheNextStep() {
        // The store slot reuses its capture from step to step: what a step noted (an entity
        // changed and changed back: no step) must not reach the next one.
        let h = BoardHarness([tile(1, "one"), tile(2, "two")])
        h.store.send(.record { $0.cards.modify(1) { $0.text = "X" }; $0.cards.modify(1) { $0.text = "one" } })
        h.store.send(.record { $0.cards.modify(1) { $0.text = "one" } })
        #expect(!h.store.canUndo)
        h.store.send(.skip { $0.cards.modify(1) { $0.text = "B" } })
        h.store.send(.record { $0.cards.modify(2) { $0.text = "C" } })
        h.store.undo()
        #expect(h.store.state.cards.values == [tile(1, "B"), tile(2, "two")])
        h.store.redo()
        #expect(h.store.state.cards.values == [tile(1, "B"), tile(2, "C")])
    }

    @Test func aFieldWrittenWithAnEqualValueIsNotAStep() {
        // Fields are compared byte-wise first, then with `==`: a new but equal value (other
        // bytes: a new string buffer) changes nothing.
        let h = BoardHarness([])
        h.store.send(.record { $0.title = String(repeating: "x", count: 40) })
        #expect(h.undo.undoCount == 1)
        h.store.send(.record { $0.title = String(repeating: "x", count: 20) + String(repeating: "x", count: 20) })
        #expect(h.undo.undoCount == 1)
        h.store.send(.record { $0.ui.filter = "a" })
        h.store.send(.record { $0.ui.filter.append("b") })   // mutated in place
        #expect(h.undo.undoCount == 3)
        h.store.undo()
        #expect(h.store.state.ui.filter == "a")
        h.store.undo()
        #expect(h.store.state.ui.filter == "")
        #expect(h.store.state.title == String(repeating: "x", count: 40))
    }

    @Test func skippedActionsRecordNothing() {
        let h = BoardHarness([tile(1)])
        h.store.send(.skip { $0.cards[2] = tile(2) })
        h.store.send(.skip { $0.ui.selection = 1 })
        #expect(!h.store.canUndo)
        #expect(h.undo.undoCount == 0)
    }

    // MARK: Insertions, deletions, order

    @Test func undoOfAnInsertionDeletesTheRow() async throws {
        let h = BoardHarness([tile(1), tile(2)])
        h.store.send(.record { $0.cards[3] = tile(3) })
        try await h.flushAndCompare()
        h.store.undo()
        #expect(h.ids == [1, 2])
        try await h.flushAndCompare()
        #expect(h.backend.batches.last?.deletions == [3])
        h.store.redo()
        #expect(h.ids == [1, 2, 3])
        try await h.flushAndCompare()
    }

    @Test func undoOfADeletionReinsertsTheEntityAtItsOldPosition() async throws {
        let h = BoardHarness((1...5).map { tile($0) })
        h.store.send(.record { $0.cards[2] = nil })
        try await h.flushAndCompare()
        h.store.undo()
        #expect(h.ids == [1, 2, 3, 4, 5])
        try await h.flushAndCompare()
        #expect(h.backend.rows.map(\.id) == [1, 2, 3, 4, 5])   // the stored position too
        h.store.redo()
        #expect(h.ids == [1, 3, 4, 5])
        try await h.flushAndCompare()
    }

    @Test func undoOfSeveralDeletionsInOneActionRestoresEveryPosition() async throws {
        let h = BoardHarness((1...9).map { tile($0) })
        h.store.send(.record { state in
            state.cards[8] = nil
            state.cards[2] = nil
            state.cards.removeAll { $0.id % 3 == 0 }
            state.cards[1] = nil
        })
        #expect(h.ids == [4, 5, 7])
        h.store.undo()
        #expect(h.ids == Array(1...9))
        try await h.flushAndCompare()
        h.store.redo()
        #expect(h.ids == [4, 5, 7])
        h.store.send(.record { $0.cards.removeAll() })
        h.store.undo()
        #expect(h.ids == [4, 5, 7])
        try await h.flushAndCompare()
    }

    @Test func undoOfASortRestoresTheOrderAndTheStoredPositions() async throws {
        let h = BoardHarness([tile(1, "b"), tile(2, "c"), tile(3, "a")])
        h.store.send(.record { $0.cards.sort { $0.text < $1.text } })
        #expect(h.ids == [3, 1, 2])
        try await h.flushAndCompare()
        h.store.undo()
        #expect(h.ids == [1, 2, 3])
        try await h.flushAndCompare()
        #expect(h.backend.batches.last?.order == [1, 2, 3])
        #expect(h.backend.rows.map(\.id) == [1, 2, 3])
        h.store.redo()
        #expect(h.ids == [3, 1, 2])
        try await h.flushAndCompare()
    }

    @Test func undoOfAMoveRestoresTheOrder() {
        let h = BoardHarness((1...6).map { tile($0) })
        h.store.send(.record { $0.cards.move(fromOffsets: [1, 4], toOffset: 6) })
        #expect(h.ids == [1, 3, 4, 6, 2, 5])
        h.store.undo()
        #expect(h.ids == [1, 2, 3, 4, 5, 6])
        h.store.redo()
        #expect(h.ids == [1, 3, 4, 6, 2, 5])
    }

    @Test func undoOfARestoreAndOfAMergeGoesBackExactly() {
        let h = BoardHarness([tile(1), tile(2), tile(3)])
        let other: EntityStore<Tile> = [tile(3, "x"), tile(4), tile(1)]
        h.store.send(.record { $0.cards.restore(from: other) })
        #expect(h.store.state.cards.values == other.values)
        h.store.undo()
        #expect(h.store.state.cards.values == [tile(1), tile(2), tile(3)])
        let file: EntityStore<Tile> = [tile(5), tile(2, "y")]
        h.store.send(.record { $0.cards.merge(from: file) { _, _ in true } })
        #expect(h.ids == [1, 2, 3, 5])
        h.store.undo()
        #expect(h.store.state.cards.values == [tile(1), tile(2), tile(3)])
    }

    @Test func aStoreReplacedWholesaleIsUndoneByTheDifference() async throws {
        let h = BoardHarness([tile(1), tile(2), tile(3)])
        h.store.send(.record { $0.cards = EntityStore([tile(3), tile(2, "two"), tile(9)]) })
        try await h.expectUndoRedo(before: [tile(1), tile(2), tile(3)], after: [tile(3), tile(2, "two"), tile(9)])
    }

    @Test func aStoreEditedInPlaceThenReplacedWholesaleIsUndoneExactly() async throws {
        let h = BoardHarness([tile(1), tile(2), tile(3)])
        h.store.send(.record { state in
            state.cards.modify(1) { $0.text = "edited" }      // in place: recorded as it happens
            state.cards[4] = tile(4)
            state.cards = EntityStore([tile(3), tile(2, "two"), tile(9)])   // then wholesale
        })
        #expect(h.undo.undoCount == 1)
        try await h.expectUndoRedo(before: [tile(1), tile(2), tile(3)], after: [tile(3), tile(2, "two"), tile(9)])
        h.store.undo()
        #expect(h.store.state.cards.values == [tile(1), tile(2), tile(3)])
        try await h.flushAndCompare()
    }

    @Test func aStoreReplacedWholesaleThenEditedInPlaceIsUndoneExactly() async throws {
        let h = BoardHarness([tile(1), tile(2), tile(3)])
        h.store.send(.record { state in
            state.cards = EntityStore([tile(3), tile(2, "two"), tile(9)])
            state.cards.modify(9) { $0.text = "nine" }
            state.cards[3] = nil
        })
        try await h.expectUndoRedo(before: [tile(1), tile(2), tile(3)], after: [tile(2, "two"), tile(9, "nine")])
    }

    // MARK: Coalescing, depth

    @Test func coalescingStepsAreOneStepWhoseFirstPreviousValueWins() {
        let h = BoardHarness([tile(1, "")])
        for text in ["H", "He", "Hey"] {
            h.store.send(.coalesce { state in
                state.title = text
                state.cards.modify(1) { $0.text = text }
            })
        }
        #expect(h.undo.undoCount == 1)
        h.store.undo()
        #expect(h.store.state.title == "")
        #expect(h.store.state.cards[1]?.text == "c1")
        #expect(!h.store.canUndo)
        h.store.redo()
        #expect(h.store.state.title == "Hey")
        #expect(h.store.state.cards[1]?.text == "Hey")
    }

    @Test func maxDepthDropsTheOldestSteps() {
        let h = BoardHarness([], maxDepth: 2)
        for id in 1...3 { h.store.send(.record { $0.cards[id] = tile(id) }) }
        #expect(h.undo.undoCount == 2)
        h.store.undo()
        h.store.undo()
        h.store.undo()                                // nothing left
        #expect(h.ids == [1])
    }

    // MARK: Cost: nothing holds the storage

    @Test func aSendWithUndoChangesTheEntityStoreInPlace() {
        let h = BoardHarness((1...100).map { tile($0) })
        let before = h.store.state.cards.storageIdentity
        h.store.send(.record { $0.cards.modify(50) { $0.text = "x" } })
        h.store.send(.record { $0.cards[101] = tile(101) })
        h.store.send(.record { $0.cards[7] = nil })
        #expect(h.store.state.cards.storageIdentity == before)   // no copy-on-write copy
        #expect(h.undo.undoCount == 3)
        h.store.undo()
        h.store.undo()
        h.store.undo()
        #expect(h.store.state.cards.values == (1...100).map { tile($0) })
    }

    @Test func entityStoresInNestedStructsAreRecordedByPatches() {
        struct Library: Sendable { var cards = EntityStore<Tile>(); var name = "" }
        struct NestedState: Sendable { var library = Library(); var count = 0 }
        struct NestedAction: Sendable { let mutate: @Sendable (inout NestedState) -> Void }
        let reducer = Reduce<NestedState, NestedAction, Void> { state, action, _ in action.mutate(&state); return nil }
        let store = Store(initialState: NestedState(library: Library(cards: [tile(1), tile(2)])), reducer: reducer,
                          environment: (), undo: UndoMiddleware(recording: \.library.cards, \.library.name, \.count))
        let before = store.state.library.cards.storageIdentity
        store.send(NestedAction { $0.library.cards.modify(2) { $0.text = "two" }; $0.library.name = "L" })
        store.send(NestedAction { $0.count = 5 })
        #expect(store.state.library.cards.storageIdentity == before)
        store.undo()
        #expect(store.state.count == 0)
        store.undo()
        #expect(store.state.library.cards.values == [tile(1), tile(2)])
        #expect(store.state.library.name == "")
    }

    @Test func withoutRecordingAStoreWithPersistenceRecordsItsPersistedStores() async throws {
        // No part named on a store with persistence: the writers' entity stores are recorded,
        // nothing else (a wholesale replacement of the state changes `name` only here: no step).
        struct FixedState: Sendable { let name: String; var cards = EntityStore<Tile>() }
        struct FixedAction: Sendable { let mutate: @Sendable (inout FixedState) -> Void }
        let reducer = Reduce<FixedState, FixedAction, Void> { state, action, _ in action.mutate(&state); return nil }
        let backend = InMemoryBackend<Tile>([tile(1)])
        let persistence = PersistenceMiddleware<FixedState>(writers: [backend.stateWriter(for: \.cards)])
        let store = Store(initialState: FixedState(name: "n", cards: [tile(1)]), reducer: reducer, environment: (),
                          persistence: persistence, undo: UndoMiddleware())
        store.send(FixedAction { $0.cards[2] = tile(2) })
        store.send(FixedAction { $0 = FixedState(name: "m", cards: $0.cards) })
        store.undo()
        #expect(store.state.name == "m")
        #expect(store.state.cards.ids == [1])
        #expect(!store.canUndo)
        try await store.flush()
        #expect(backend.rows == [tile(1)])
        store.redo()
        #expect(store.state.cards.ids == [1, 2])
        try await store.flush()
        #expect(backend.rows == [tile(1), tile(2)])
    }

    @Test func withoutRecordingNorPersistenceTheWholeStateIsOneStep() {
        // No part named, nothing persisted: the state is kept whole (snapshot mode).
        struct FixedState: Sendable { let name: String; var cards = EntityStore<Tile>() }
        struct FixedAction: Sendable { let mutate: @Sendable (inout FixedState) -> Void }
        let reducer = Reduce<FixedState, FixedAction, Void> { state, action, _ in action.mutate(&state); return nil }
        let store = Store(initialState: FixedState(name: "n", cards: [tile(1)]), reducer: reducer, environment: (),
                          undo: UndoMiddleware())
        store.send(FixedAction { $0.cards[2] = tile(2) })
        store.send(FixedAction { $0 = FixedState(name: "m", cards: $0.cards) })
        store.undo()
        #expect(store.state.name == "n")
        store.undo()
        #expect(store.state.cards.ids == [1])
        store.redo()
        #expect(store.state.cards.ids == [1, 2])
    }

    @Test func anUndoRequestedWhileAnActionIsReducedRunsAfterIt() {
        final class UndoingMiddleware: Middleware {
            var store: Store<BoardState, BoardAction>?
            func afterReduce(state: inout BoardState, action: BoardAction) {
                if state.title == "undo me" { store?.undo() }
            }
        }
        let hook = UndoingMiddleware()
        let store = Store(initialState: BoardState(), reducer: boardReducer, environment: (),
                          middleware: [hook], undo: UndoMiddleware())
        hook.store = store
        store.send(.record { $0.cards[1] = tile(1) })
        store.send(.record { $0.title = "undo me" })
        #expect(store.state.title == "")
        #expect(store.state.cards.ids == [1])
        #expect(store.canRedo)
    }
}
