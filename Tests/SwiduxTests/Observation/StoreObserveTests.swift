import Testing
@testable import Swidux

/// Issue 30 item 8: rendering from a store without SwiftUI and without Combine —
/// `store.observe { }` (re-run when what it read changes, stopped when its token goes) and
/// `store.values(of:)`.
@MainActor
struct StoreObserveTests {
    struct State: Equatable {
        var count = 0
        var title = "a"
    }
    enum Action: Sendable { case increment, rename(String), nothing }
    struct Reducer: SwiduxReducer {
        func reduce(state: inout State, action: Action, environment: Void) -> Effect<Action>? {
            switch action {
            case .increment: state.count += 1
            case .rename(let title): state.title = title
            case .nothing: break
            }
            return nil
        }
    }

    /// Lets the re-runs scheduled on the main actor happen.
    func settle() async { for _ in 0..<20 { await Task.yield() } }

    @Test func observeRunsAtOnceAndAgainWhenWhatItReadChanges() async {
        let store = Store(initialState: State(), reducer: Reducer(), environment: ())
        var seen: [Int] = []
        let token = store.observe { store in seen.append(store.count) }
        #expect(seen == [0])
        store.send(.increment)
        await settle()
        #expect(seen == [0, 1])
        store.send(.rename("b"))   // not read by the closure
        store.send(.nothing)       // changes nothing
        await settle()
        #expect(seen == [0, 1])
        store.send(.increment)
        store.send(.increment)
        await settle()
        #expect(seen.last == 3)
        _ = token
    }

    @Test func releasingOrCancellingTheTokenStopsTheObservation() async {
        let store = Store(initialState: State(), reducer: Reducer(), environment: ())
        var runs = 0
        var token: ObservationToken? = store.observe { store in _ = store.count; runs += 1 }
        token = nil
        store.send(.increment)
        await settle()
        #expect(runs == 1)
        _ = token

        var cancelledRuns = 0
        let kept = store.observe { store in _ = store.count; cancelledRuns += 1 }
        kept.cancel()
        store.send(.increment)
        await settle()
        #expect(cancelledRuns == 1)
    }

    @Test func valuesOfASliceYieldTheCurrentValueThenEachChange() async {
        let store = Store(initialState: State(), reducer: Reducer(), environment: ())
        var iterator = store.values(of: \.count).makeAsyncIterator()
        #expect(await iterator.next() == 0)
        store.send(.increment)
        #expect(await iterator.next() == 1)
        store.send(.rename("x"))
        store.send(.increment)
        #expect(await iterator.next() == 2)
    }

    @Test func aLoopOverValuesEndsWhenItsTaskIsCancelled() async {
        let store = Store(initialState: State(), reducer: Reducer(), environment: ())
        let task = Task { @MainActor in
            var last = -1
            for await count in store.values(of: \.count) { last = count }
            return last
        }
        await settle()
        store.send(.increment)
        await settle()
        task.cancel()
        #expect(await task.value == 1)
    }

    // A closure that sends: the change it makes while it runs happens before its observation
    // is installed, so it must be run again at once (it used to show 1 while `count` was 2).

    @Test func anObserveClosureThatSendsRunsAgainUntilWhatItReadIsCurrent() async {
        let store = Store(initialState: State(), reducer: Reducer(), environment: ())
        var label = ""
        var shown: [Int] = []
        let token = store.observe { store in
            label = "\(store.count)"
            shown.append(store.count)
            if store.count == 0 { store.send(.increment) }   // one round
        }
        #expect(shown == [0, 1])
        #expect(label == "\(store.count)")
        store.send(.increment)   // and it keeps observing afterwards
        await settle()
        #expect(shown == [0, 1, 2])
        #expect(label == "2")
        _ = token
    }

    @Test func anObserveClosureThatSendsTwiceRunsAgainTwice() async {
        let store = Store(initialState: State(), reducer: Reducer(), environment: ())
        var label = ""
        var runs = 0
        let token = store.observe { store in
            runs += 1
            label = "\(store.count)"
            if store.count < 2 { store.send(.increment) }   // two rounds
        }
        #expect(store.count == 2)
        #expect(label == "2")
        #expect(runs == 3)
        // A re-run started by a later change also settles where the state is.
        store.send(.rename("b"))
        store.send(.increment)
        store.send(.increment)
        await settle()
        #expect(store.count == 4)
        #expect(label == "4")
        #expect(runs == 4)
        _ = token
    }

    @Test func aClosureThatSendsWhatItDidNotReadDoesNotRunAgain() async {
        let store = Store(initialState: State(), reducer: Reducer(), environment: ())
        var runs = 0
        let token = store.observe { store in
            runs += 1
            _ = store.count
            store.send(.rename("seen \(runs)"))   // changes `title`, which it did not read
        }
        await settle()
        #expect(runs == 1)
        #expect(store.title == "seen 1")
        _ = token
    }

    @Test func anMVIStoreObserveClosureThatSendsRunsAgain() {
        let store = MVIStore<Int, Int, Int>(
            initial: 0, reduceIntent: { state, intent in state += intent; return nil }, reduceAction: { _, _ in })
        var shown: [Int] = []
        let token = store.observe { store in
            shown.append(store.state)
            if store.state < 2 { store.send(1) }
        }
        #expect(shown == [0, 1, 2])
        _ = token
    }

    // `values(of:)` ends when the store is gone: a loop over it does not wait forever.

    @Test(.timeLimit(.minutes(1))) func aLoopOverValuesEndsWhenTheStoreIsReleased() async {
        var store: Store<State, Action>? = Store(initialState: State(), reducer: Reducer(), environment: ())
        let values = store!.values(of: \.count)
        var seen: [Int] = []
        var ended = false
        let loop = Task { @MainActor in
            for await count in values { seen.append(count) }
            ended = true
        }
        await settle()
        store?.send(.increment)
        await settle()
        store = nil
        #expect(await waitUntil { ended })
        #expect(seen == [0, 1])
        loop.cancel()
    }

    @Test(.timeLimit(.minutes(1))) func valuesOfAScopedStoreFollowWhileTheRootLivesAndEndWithIt() async {
        var root: Store<State, Action>? = Store(initialState: State(), reducer: Reducer(), environment: ())
        // The scoped store itself is released at once: the sequence goes on with the root.
        let values = root!.scope(state: \.count, embed: { $0 }).values(of: \.self)
        var seen: [Int] = []
        var ended = false
        let loop = Task { @MainActor in
            for await count in values { seen.append(count) }
            ended = true
        }
        await settle()
        root?.send(.increment)
        await settle()
        root?.send(.increment)
        await settle()
        root = nil
        #expect(await waitUntil { ended })
        #expect(seen == [0, 1, 2])
        loop.cancel()
    }
}
