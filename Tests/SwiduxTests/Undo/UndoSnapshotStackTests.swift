import Testing
import Swidux

/// The snapshot stack of hand-written stores, through public API only.
@Suite("UndoSnapshotStack", .timeLimit(.minutes(1)))
struct UndoSnapshotStackTests {
    @Test func undoAndRedoMoveBetweenSnapshots() {
        var history = UndoSnapshotStack<Int>(maxDepth: 10)
        #expect(!history.canUndo && !history.canRedo)
        #expect(history.undo(current: 0) == nil)
        history.willReduce(state: 1)
        history.willReduce(state: 2)
        #expect(history.undoCount == 2)
        #expect(history.undo(current: 3) == 2)
        #expect(history.undo(current: 2) == 1)
        #expect(!history.canUndo && history.redoCount == 2)
        #expect(history.redo(current: 1) == 2)
        #expect(history.redo(current: 2) == 3)
        #expect(history.redo(current: 3) == nil)
        #expect(history.undoCount == 2)
    }

    @Test func aNewStepClearsRedo() {
        var history = UndoSnapshotStack<String>()
        history.willReduce(state: "a")
        #expect(history.undo(current: "b") == "a")
        #expect(history.canRedo)
        history.willReduce(state: "a")
        #expect(!history.canRedo)
    }

    @Test func coalescingCallsFormOneStep() {
        var history = UndoSnapshotStack<String>(maxDepth: 10)
        history.willReduce(state: "", coalescing: true)
        history.willReduce(state: "a", coalescing: true)
        history.willReduce(state: "ab", coalescing: true)
        #expect(history.undoCount == 1)
        history.willReduce(state: "abc", coalescing: false)
        history.willReduce(state: "abc!", coalescing: true)
        #expect(history.undoCount == 3)
        #expect(history.undo(current: "abc!?") == "abc!")
        // An undo ends the run: the next coalescing call is a step of its own.
        history.willReduce(state: "abc!", coalescing: true)
        #expect(history.undoCount == 3)
    }

    @Test func maxDepthDropsTheOldest() {
        var history = UndoSnapshotStack<Int>(maxDepth: 3)
        for i in 0..<10 { history.willReduce(state: i) }
        #expect(history.undoCount == 3)
        #expect(history.undo(current: 10) == 9)
        #expect(history.undo(current: 9) == 8)
        #expect(history.undo(current: 8) == 7)
        #expect(history.undo(current: 7) == nil)
    }

    @Test func removeAllForgetsEveryStep() {
        var history = UndoSnapshotStack<Int>()
        history.willReduce(state: 1)
        history.willReduce(state: 2)
        _ = history.undo(current: 3)
        history.removeAll()
        #expect(!history.canUndo && !history.canRedo)
        #expect(history.undoCount == 0 && history.redoCount == 0)
    }

    /// The standalone calls of `UndoMiddleware` keep working, on a snapshot stack of their own
    /// that leaves a store's history apart.
    @MainActor
    @Test func undoMiddlewareStandaloneCallsUseASnapshotStack() {
        let undo = UndoMiddleware<Int>(maxDepth: 2)
        #expect(!undo.canUndo)
        for i in 0..<5 { undo.willReduce(state: i) }
        #expect(undo.undoCount == 2)
        #expect(undo.undo(current: 5) == 4)
        #expect(undo.canRedo && undo.redoCount == 1)
        undo.removeAll()
        #expect(!undo.canUndo && !undo.canRedo)
    }
}
