import SwiduxTesting
import Testing

/// `Effect.debounce(id:for:clock:)` driven by a `TestClock`: no real sleeping.
@MainActor
@Suite struct DebounceTests {
    @Test func onlyTheLastQueryOfABurstIsSearched() async {
        let clock = TestClock()
        let spy = SearchSpy()
        let store = TestStore(
            initialState: SearchState(),
            reducer: SearchReducer(),
            environment: SearchEnvironment(clock: clock, search: spy.search)
        )
        await store.send(.queryChanged("s")) { $0.query = "s" }
        await clock.advance(by: .milliseconds(200))
        await store.send(.queryChanged("sw")) { $0.query = "sw" }   // restarts the window
        await clock.advance(by: .milliseconds(299))
        #expect(spy.queries.isEmpty)
        await clock.advance(by: .milliseconds(1))
        await store.receive(.response(["sw!"])) { $0.results = ["sw!"] }
        await store.finish()
        #expect(spy.queries == ["sw"])
    }

    @Test func clearingTheQueryCancelsThePendingSearch() async {
        let clock = TestClock()
        let spy = SearchSpy()
        let store = TestStore(
            initialState: SearchState(),
            reducer: SearchReducer(),
            environment: SearchEnvironment(clock: clock, search: spy.search)
        )
        await store.send(.queryChanged("s")) { $0.query = "s" }
        await store.send(.queryChanged("")) { $0.query = "" }
        await clock.advance(by: .seconds(1))
        await store.finish()
        #expect(spy.queries.isEmpty)
    }

    @Test func aPendingSearchFailsFinishUntilTheClockAdvances() async {
        let clock = TestClock()
        let store = TestStore(
            initialState: SearchState(),
            reducer: SearchReducer(),
            environment: SearchEnvironment(clock: clock, search: { ["\($0)!"] })
        )
        await store.send(.queryChanged("s")) { $0.query = "s" }
        await withKnownIssue {
            await store.finish(timeout: .milliseconds(20))
        } matching: { issue in
            issue.description.contains("started by send(SearchAction.queryChanged(\"s\"))")
        }
        await clock.advance(by: .milliseconds(300))
        await store.receive(.response(["s!"])) { $0.results = ["s!"] }
        await store.finish()
    }
}
