import Observation
import Testing
@testable import Swidux

/// A middleware that reads the store and sends through it from its hooks (issue 16 item 1).
final class ReentrantMiddleware: Middleware {
    weak var store: Store<[Int], Int>?
    /// Actions to send from `beforeReduce` / `afterReduce` when a given action is reduced.
    var sendBefore: [Int: [Int]] = [:]
    var sendAfter: [Int: [Int]] = [:]
    var sendOnEveryAction = false
    private(set) var reads: [String] = []

    func beforeReduce(state: [Int], action: Int) {
        guard let store else { return }
        if !sendOnEveryAction { reads.append("before \(action): \(store.state)") }
        for next in sendBefore[action] ?? [] { store.send(next) }
        if sendOnEveryAction { store.send(action + 1) }
    }

    func afterReduce(state: inout [Int], action: Int) {
        guard let store else { return }
        if !sendOnEveryAction { reads.append("after \(action): \(store.state)") }
        for next in sendAfter[action] ?? [] { store.send(next) }
    }
}

/// Appends every action; `1` has the immediate follow-up `2`.
@MainActor let appender = Reduce<[Int], Int, Void> { state, action, _ in
    state.append(action)
    return action == 1 ? .send(2) : nil
}

@MainActor
@Suite("Dispatch re-entrancy", .timeLimit(.minutes(1)))
struct DispatchReentrancyTests {
    func makeStore(_ middleware: ReentrantMiddleware, undo: Bool = false, errors: Recorder<String>? = nil) -> Store<[Int], Int> {
        let store = Store(initialState: [], reducer: appender, environment: (), middleware: [middleware],
                          undo: undo ? UndoMiddleware<[Int]>() : nil,
                          onUnexpectedError: { errors?.append("\($0)") })
        middleware.store = store
        return store
    }

    @Test func hooksReadTheCurrentState() {
        let middleware = ReentrantMiddleware()
        let store = makeStore(middleware)
        store.send(5)
        #expect(middleware.reads == ["before 5: []", "after 5: [5]"])
    }

    @Test func sendFromBeforeReduceIsReducedAfterTheCurrentDispatch() {
        let middleware = ReentrantMiddleware()
        middleware.sendBefore = [5: [7]]
        let store = makeStore(middleware)
        store.send(5)
        #expect(store.state == [5, 7])
    }

    @Test func sendsFromHooksAreQueuedInOrderAfterImmediateFollowUps() {
        let middleware = ReentrantMiddleware()
        middleware.sendBefore = [1: [10]]
        middleware.sendAfter = [1: [20, 30], 10: [40]]
        let store = makeStore(middleware)
        store.send(1)
        // 2 is 1's `.send` follow-up (part of its dispatch); then the queue, FIFO.
        #expect(store.state == [1, 2, 10, 20, 30, 40])
        #expect(middleware.reads.contains("after 10: [1, 2, 10]"))
    }

    @Test func anActionSentFromAHookHasItsOwnUndoStep() {
        let middleware = ReentrantMiddleware()
        middleware.sendBefore = [5: [7]]
        let store = makeStore(middleware, undo: true)
        store.send(5)
        #expect(store.state == [5, 7])
        store.undo()
        #expect(store.state == [5])
        store.undo()
        #expect(store.state == [])
    }

    @Test func aHookThatSendsForEveryActionIsReportedAsALoop() {
        let middleware = ReentrantMiddleware()
        middleware.sendOnEveryAction = true
        let errors = Recorder<String>()
        let store = makeStore(middleware, errors: errors)
        store.send(100)
        #expect(errors.values.count == 1)
        #expect(errors.values.first?.contains("dispatch loop") == true)
        #expect(store.state.first == 100)
        // The store still works afterwards.
        middleware.sendOnEveryAction = false
        store.send(0)
        #expect(store.state.last == 0)
    }

    @Test func anObserverThatSendsWhileBeingNotifiedIsQueued() {
        let store = Store(initialState: [Int](), reducer: appender, environment: ())
        withObservationTracking {
            _ = store.state
        } onChange: {
            MainActor.assumeIsolated { _ = store.send(99) }
        }
        store.send(5)
        #expect(store.state == [5, 99])
    }

    @Test func anObserverThatSendsDuringUndoIsQueuedAfterIt() {
        let store = Store(initialState: [Int](), reducer: appender, environment: (),
                          undo: UndoMiddleware<[Int]>())
        store.send(5)
        withObservationTracking {
            _ = store.state
        } onChange: {
            MainActor.assumeIsolated { _ = store.send(1) }   // 1 has the follow-up 2
        }
        store.undo()
        #expect(store.state == [1, 2])
        store.undo()
        #expect(store.state == [1])
    }
}
