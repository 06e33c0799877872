import Testing
@testable import Swidux

/// A store's `UndoMiddleware` with no part named (`UndoMiddleware(maxDepth: 20)`, the form
/// most apps write) records what the store persists — its writers' entity stores — and
/// nothing else: undo never puts back UI state, nor a row another writer deleted, nor takes
/// out a row another writer added. The whole-state snapshot is for a store without
/// persistence only.
@MainActor
@Suite("Undo with no part named", .timeLimit(.minutes(1)))
struct DefaultUndoPartsTests {
    /// Every action records (no `UndoableAction` conformance): the UI selection is a plain
    /// part of the state the store does not persist.
    enum Action: Sendable {
        case add(Int, String)
        case rename(Int, String)
        case select(Int?)
    }

    struct State: Equatable {
        var notes = EntityStore<Note>()
        var selection: Int?
    }

    static let reducer = Reduce<State, Action, Void> { state, action, _ in
        switch action {
        case .add(let id, let text): state.notes[id] = Note(id: id, text: text, tagID: nil)
        case .rename(let id, let text): state.notes.modify(id) { $0.text = text }
        case .select(let id): state.selection = id
        }
        return nil
    }

    func persistedStore(_ table: MemoryTable<Note>, undo: UndoMiddleware<State> = UndoMiddleware(maxDepth: 20)) -> Store<State, Action> {
        Store(initialState: State(), reducer: Self.reducer, environment: (),
              persistence: PersistenceMiddleware(writers: [table.writer(\.notes)]),
              undo: undo)
    }

    @Test func undoLeavesTheUIStateWhereTheUserPutIt() async throws {
        let table = MemoryTable<Note>()
        let store = persistedStore(table)
        store.send(.add(1, "a"))
        store.send(.select(1))
        store.send(.add(2, "b"))
        store.send(.select(2))
        store.undo()
        #expect(store.notes.ids == [1])
        #expect(store.selection == 2)     // not put back to 1
        store.undo()
        #expect(store.notes.ids.isEmpty)
        #expect(store.selection == 2)
        #expect(!store.canUndo)
        store.redo()
        #expect(store.notes.ids == [1])
        #expect(store.selection == 2)
        try await store.flush()
        #expect(table.stored.map(\.id) == [1])
    }

    @Test func anActionThatChangesOnlyUIStateRecordsNoStep() {
        let store = persistedStore(MemoryTable<Note>())
        store.send(.select(3))
        #expect(!store.canUndo)
        store.send(.add(1, "a"))
        store.send(.select(1))
        store.send(.select(nil))
        store.undo()
        #expect(store.notes.ids.isEmpty)
        #expect(!store.canUndo)            // no phantom step left for the selections
    }

    @Test func undoLeavesWhatAnotherWriterDeletedAndAddedAsItIs() async throws {
        let undo = UndoMiddleware<State>(maxDepth: 20)
        let store = persistedStore(MemoryTable<Note>(), undo: undo)
        store.send(.add(1, "a"))
        store.send(.add(3, "c"))
        store.send(.rename(3, "c edited"))
        try await store.flush()             // (an unflushed local change would win over theirs)
        // Another writer deleted 3 and added 2.
        var changes = ExternalChanges<State>(origin: "other")
        changes.delete(3, in: \.notes)
        changes.upsert(Note(id: 2, text: "theirs", tagID: nil), in: \.notes)
        store.applyExternalChanges(changes)
        store.send(.select(2))
        #expect(store.notes.ids == [1, 2])
        // The steps that changed only 3 went with it: no undo that does nothing is left.
        #expect(undo.undoCount == 1)
        store.undo()                        // the insertion of 1
        #expect(store.notes[3] == nil)
        #expect(store.notes.ids == [2])
        #expect(store.notes[2]?.text == "theirs")
        #expect(store.selection == 2)
        #expect(!store.canUndo)
    }

    @Test func aStoreWithoutPersistenceStillUndoesTheWholeState() {
        let store = Store(initialState: State(), reducer: Self.reducer, environment: (), undo: UndoMiddleware(maxDepth: 20))
        store.send(.add(1, "a"))
        store.send(.select(1))
        store.send(.select(1))              // changes nothing: no step
        store.undo()
        #expect(store.selection == nil)
        #expect(store.notes.ids == [1])
        store.undo()
        #expect(store.notes.ids.isEmpty)
        #expect(!store.canUndo)
    }
}
