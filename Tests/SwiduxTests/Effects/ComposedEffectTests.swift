import Testing
@testable import Swidux

/// A search feature composed twice: each instance debounces under the same id.
struct SearchFeature: SwiduxReducer {
    enum Action: Equatable, Sendable { case query(String), response(String) }
    func reduce(state: inout [String], action: Action, environment: SpyClock) -> Effect<Action>? {
        switch action {
        case .query(let query):
            return Effect.send(.response(query)).debounce(id: "search", for: .seconds(1), clock: environment)
        case .response(let value):
            state.append(value)
            return nil
        }
    }
}

struct TwoSearches: Equatable { var left: [String] = []; var right: [String] = [] }
enum TwoSearchesAction: Equatable, Sendable { case left(SearchFeature.Action), right(SearchFeature.Action) }

@MainActor
@Suite("Composed and reused effects", .timeLimit(.minutes(1)))
struct ComposedEffectTests {
    @Test func twoInstancesDebounceIndependently() async {
        let clock = SpyClock()
        let reducer = CombineReducers(
            SearchFeature().lifted(state: \TwoSearches.left,
                                   extract: { (a: TwoSearchesAction) in if case .left(let x) = a { x } else { nil } },
                                   embed: TwoSearchesAction.left, environment: { (c: SpyClock) in c }),
            SearchFeature().lifted(state: \TwoSearches.right,
                                   extract: { (a: TwoSearchesAction) in if case .right(let x) = a { x } else { nil } },
                                   embed: TwoSearchesAction.right, environment: { (c: SpyClock) in c })
        )
        let store = Store(initialState: TwoSearches(), reducer: reducer, environment: clock)
        let left = store.send(.left(.query("l")))
        let right = store.send(.right(.query("r")))       // same id, other scope: left keeps waiting
        await clock.advance(by: .seconds(1), afterSleeps: 2)
        await left.finish()
        await right.finish()
        #expect(store.state == TwoSearches(left: ["l"], right: ["r"]))
    }

    @Test func siblingsWithTheSameIdAndCancelInFlightKeepTheLastStarted() async {
        let gate = Gate()
        await gate.open()
        let store = Store(initialState: [String](), reducer: Reduce<[String], String?, Void> { state, action, _ in
            if let action { state.append(action); return nil }
            return .merge(
                .cancellable(id: "x") { await gate.wait(); return "first" },
                .cancellable(id: "x") { await gate.wait(); return "second" }
            )
        }, environment: ())
        await store.send(nil).finish()
        #expect(store.state == ["second"])
    }

    @Test func releasingTheStoreDuringADebounceCancelsIt() async {
        let clock = SpyClock()
        let cancelled = Recorder<Bool>()
        var store: Store<[String], String>? = Store(initialState: [], reducer: Reduce<[String], String, Void> { state, action, _ in
            state.append(action)
            guard action == "go" else { return nil }
            return Effect.run { send in
                if Task.isCancelled { cancelled.append(true) }
                await send("late")
            }
            .debounce(id: "d", for: .seconds(1), clock: clock)
        }, environment: ())
        weak let weakStore = store
        store!.send("go")
        #expect(await waitUntil { clock.sleepCount == 1 })
        store = nil
        #expect(weakStore == nil)
        await clock.advance(by: .seconds(5))
        for _ in 0..<50 { await Task.yield() }
        #expect(cancelled.values.isEmpty)     // the debounced body never ran
    }

    @Test func aReusedConcatenationOfDebouncesWaitsEachTime() async {
        let clock = SpyClock()
        let effect: Effect<String> = .concatenate(
            Effect.send("one").debounce(id: "a", for: .seconds(1), clock: clock),
            Effect.send("two").debounce(id: "b", for: .seconds(1), clock: clock)
        )
        let store = Store(initialState: [String](), reducer: Reduce<[String], String, Void> { state, action, _ in
            if action == "go" { return effect }
            state.append(action)
            return nil
        }, environment: ())
        await clock.advance(by: .seconds(10))   // long after the effect value was built
        for round in 1...2 {
            let task = store.send("go")
            await clock.advance(by: .seconds(1), afterSleeps: 2 * round - 1)
            #expect(await waitUntil { clock.sleepCount == 2 * round })
            #expect(store.state.count == 2 * round - 1)   // "two" waits its own window
            await clock.advance(by: .seconds(1))
            await task.finish()
            #expect(store.state.count == 2 * round)
        }
        #expect(store.state == ["one", "two", "one", "two"])
    }
}
