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
}
