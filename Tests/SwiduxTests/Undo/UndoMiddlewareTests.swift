import Testing
@testable import Swidux

enum EditAction: Sendable, Equatable, UndoableAction {
    case type(String)       // coalescing: typing forms one step
    case add(Int, String)   // one step
    case select(Int)        // not undoable
    case noop
    var undoPolicy: UndoPolicy {
        switch self {
        case .type: .coalesce
        case .select: .skip
        case .add, .noop: .record
        }
    }
}

struct EditState: Equatable {
    var title = ""
    var notes = EntityStore<Note>()
    var selection: Int?
}

@MainActor
let editReducer = Reduce<EditState, EditAction, Void> { state, action, _ in
    switch action {
    case .type(let text): state.title = text
    case .add(let id, let text): state.notes[id] = Note(id: id, text: text, tagID: nil)
    case .select(let id): state.selection = id
    case .noop: break
    }
    return nil
}

@MainActor
@Suite("UndoMiddleware", .timeLimit(.minutes(1)))
struct UndoMiddlewareTests {
    @Test func standaloneWillReducePushesEveryCall() {
        let undo = UndoMiddleware<Int>(maxDepth: 10)
        undo.willReduce(state: 1, coalescing: false)
        undo.willReduce(state: 1, coalescing: false)
        #expect(undo.undoCount == 2)
        #expect(undo.undo(current: 5) == 1)
        #expect(undo.redo(current: 1) == 5)
        #expect(undo.canUndo)
        #expect(!undo.canRedo)
    }

    @Test func coalescingCallsFormOneStep() {
        let undo = UndoMiddleware<String>(maxDepth: 10)
        undo.willReduce(state: "", coalescing: true)
        undo.willReduce(state: "a", coalescing: true)
        undo.willReduce(state: "ab", coalescing: true)
        #expect(undo.undoCount == 1)
        undo.willReduce(state: "abc", coalescing: false)
        undo.willReduce(state: "abc!", coalescing: true)
        #expect(undo.undoCount == 3)
    }

    @Test func maxDepthDropsTheOldest() {
        let undo = UndoMiddleware<Int>(maxDepth: 3)
        for i in 0..<10 { undo.willReduce(state: i) }
        #expect(undo.undoCount == 3)
        #expect(undo.undo(current: 10) == 9)
        #expect(undo.undo(current: 9) == 8)
        #expect(undo.undo(current: 8) == 7)
        #expect(undo.undo(current: 7) == nil)
    }

    @Test func storeUndoRedoWithClassification() {
        let store = Store(initialState: EditState(), reducer: editReducer, environment: (),
                          undo: UndoMiddleware(maxDepth: 50, recording: \.title, \.notes))
        #expect(!store.canUndo)
        store.send(.type("H"))
        store.send(.type("He"))
        store.send(.type("Hey"))
        store.send(.select(3))            // skipped
        store.send(.noop)                 // changes nothing: no step
        store.send(.add(1, "note"))
        #expect(store.canUndo)
        store.undo()
        #expect(store.notes.isEmpty)
        #expect(store.title == "Hey")
        store.undo()                      // the whole typing run at once
        #expect(store.title == "")
        #expect(!store.canUndo)
        #expect(store.canRedo)
        store.redo()
        #expect(store.title == "Hey")
        store.redo()
        #expect(store.notes.values == [Note(id: 1, text: "note", tagID: nil)])
        #expect(!store.canRedo)
    }

    @Test func canUndoIsObservable() {
        let store = Store(initialState: EditState(), reducer: editReducer, environment: (), undo: UndoMiddleware())
        let reads = ChangeCounter { _ = store.canUndo }
        store.send(.add(1, "a"))
        #expect(reads.count == 1)
        store.send(.noop)
        #expect(reads.count == 1)
        store.undo()
        #expect(reads.count == 2)
    }

    @Test func undoneStatesArePersistedThroughTheNormalPath() async throws {
        let table = MemoryTable<Note>()
        let persistence = PersistenceMiddleware<EditState>(writers: [table.writer(\.notes)])
        let store = Store(initialState: EditState(), reducer: editReducer, environment: (),
                          persistence: persistence, undo: UndoMiddleware())
        store.send(.add(1, "a"))
        store.send(.add(2, "b"))
        try await store.flush()
        #expect(table.stored.map(\.id) == [1, 2])
        store.undo()
        try await store.flush()
        #expect(table.stored.map(\.id) == [1])
        #expect(table.batches.last?.deletions == [2])
        store.redo()
        try await store.flush()
        #expect(table.stored.map(\.id) == [1, 2])
        #expect(table.batches.last?.writes.map(\.id) == [2])
    }
}
