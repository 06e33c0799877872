import SwiduxTesting
import Testing

/// A middleware that stamps the number of actions it saw into the state, after the reducer.
@MainActor
private final class Stamp: Middleware {
    var seen = 0
    func afterReduce(state: inout TodoState, action: TodoAction) {
        seen += 1
        state.stamp = seen
    }
}

/// `TestStore(undo:middleware:)`: undo and custom middleware tested exhaustively.
@MainActor
@Suite struct TestStoreUndoAndMiddlewareTests {
    let milk = Todo(id: 1, title: "Milk")

    @Test func undoAndRedoAreAssertedLikeSends() async {
        let store = TestStore(
            initialState: TodoState(), reducer: todoReducer, environment: (),
            undo: UndoMiddleware(recording: \.todos, \.stamp)
        )
        #expect(!store.canUndo)
        await store.send(.add(milk)) { $0.todos[milk.id] = milk }
        #expect(store.canUndo)
        await store.undo { $0.todos[milk.id] = nil }
        #expect(store.canRedo)
        await store.redo { $0.todos[milk.id] = milk }
        await store.finish()
    }

    @Test func aWrongUndoExpectationFailsWithADiff() async {
        let store = TestStore(
            initialState: TodoState(), reducer: todoReducer, environment: (),
            undo: UndoMiddleware(recording: \.todos, \.stamp)
        )
        await store.send(.add(milk)) { $0.todos[milk.id] = milk }
        await withKnownIssue {
            await store.undo()   // expects no change, but milk is gone
        } matching: { issue in
            issue.description.contains("State after undo() does not match the expectation")
        }
        await store.redo { $0.todos[milk.id] = milk }
    }

    @Test func undoWithNothingToUndoFails() async {
        let store = TestStore(initialState: TodoState(), reducer: todoReducer, environment: ())
        await withKnownIssue {
            await store.undo()
        } matching: { issue in
            issue.description.contains("Nothing to undo")
        }
    }

    @Test func aCustomMiddlewareStateChangeIsPartOfTheStep() async {
        let stamp = Stamp()
        let store = TestStore(
            initialState: TodoState(), reducer: todoReducer, environment: (),
            middleware: [stamp]
        )
        await store.send(.add(milk)) {
            $0.todos[milk.id] = milk
            $0.stamp = 1
        }
        await store.send(.remove(milk.id)) {
            $0.todos[milk.id] = nil
            $0.stamp = 2
        }
        #expect(stamp.seen == 2)
        await store.finish()
    }
}
