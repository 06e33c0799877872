import SwiduxTesting
import Testing

/// `exhaustivity = .off`, `skipReceivedActions()` and the other ways to assert less.
@MainActor
@Suite struct ExhaustivityTests {
    @Test func offChecksOnlyWhatTheClosureSets() async {
        let store = TestStore<ProbeState, ProbeAction>.probe()
        store.exhaustivity = .off
        await store.send(.bump)                        // no closure: nothing is checked
        await store.send(.bump) { $0.count = 2 }       // checks `count` only
        await store.send(.load) { $0.isLoading = true }
        await store.receive(.loaded(42)) { $0.value = 42 }
        await store.finish()
    }

    @Test func offStillFailsAWrongPartialExpectation() async {
        let store = TestStore<ProbeState, ProbeAction>.probe()
        store.exhaustivity = .off
        await withKnownIssue {
            await store.send(.bump) { $0.count = 5 }
        } matching: { issue in
            issue.description.contains("−   count: 5") && issue.description.contains("+   count: 1")
        }
    }

    @Test func offSkipsUnassertedActionsAndRunningEffects() async {
        let store = TestStore<ProbeState, ProbeAction>.probe()
        store.exhaustivity = .off
        await store.send(.bumpTwice)                   // `.bump` is received, never asserted
        await store.send(.wait)                        // still running at the end
        await store.send(.bump) { $0.count = 3 }
        await store.finish(timeout: .milliseconds(20))
    }

    @Test func offReceiveSkipsToTheMatchingAction() async {
        let store = TestStore<ProbeState, ProbeAction>.probe()
        store.exhaustivity = .off
        await store.send(.bumpTwice)
        await store.send(.load)
        await store.receive(.loaded(42)) { $0.value = 42 }
        #expect(store.state == ProbeState(count: 2, value: 42, isLoading: false))
    }

    @Test func skipReceivedActionsMovesTheBaseline() async {
        let store = TestStore<ProbeState, ProbeAction>.probe()
        await store.send(.bumpTwice) { $0.count = 1 }
        await store.skipReceivedActions()
        await store.send(.bump) { $0.count = 3 }       // counts from the skipped action's state
        await store.finish()
    }

    @Test func receiveByPredicateForActionsThatAreNotEquatable() async {
        let store = TestStore<ProbeState, ProbeAction>.probe()
        await store.send(.load) { $0.isLoading = true }
        await store.receive({ if case .loaded = $0 { true } else { false } }) {
            $0.value = 42
            $0.isLoading = false
        }
        await store.finish()
    }

    @Test func receiveByExtractedPayload() async {
        let store = TestStore<ProbeState, ProbeAction>.probe()
        await store.send(.load) { $0.isLoading = true }
        await store.receive({ if case .loaded(let value) = $0 { value } else { nil } }, 42) {
            $0.value = 42
            $0.isLoading = false
        }
        await store.finish()
    }

    @Test func receiveByExtractedPayloadNamesTheDifference() async {
        let store = TestStore<ProbeState, ProbeAction>.probe()
        await store.send(.load) { $0.isLoading = true }
        await withKnownIssue {
            await store.receive({ if case .loaded(let value) = $0 { value } else { nil } }, 7)
        } matching: { issue in
            issue.description.contains("Received action ProbeAction.loaded(42) carries a different value")
                && issue.description.contains("− 7") && issue.description.contains("+ 42")
        }
        await store.finish()
    }

    @Test func sendReturnsATaskThatCancelsTheEffects() async {
        let clock = TestClock()
        let store = TestStore<ProbeState, ProbeAction>.probe(clock: clock)
        let task = await store.send(.wait)
        task.cancel()
        await clock.advance(by: .seconds(10))
        await store.finish()
    }

    @Test func aTimedEffectDeliversAfterTheClockAdvances() async {
        let clock = TestClock()
        let store = TestStore<ProbeState, ProbeAction>.probe(clock: clock)
        await store.send(.wait)
        await clock.advance(by: .seconds(10))
        await store.receive(.loaded(10)) { $0.value = 10 }
        await store.finish()
    }
}

/// The test store is main-actor isolated, but a test need not be.
@Suite struct NonisolatedTestStoreTests {
    @Test func usableFromANonisolatedTest() async {
        let store = await TestStore(initialState: ProbeState(), reducer: ProbeReducer(),
                                    environment: ProbeEnvironment(clock: TestClock()))
        await store.send(.load) { $0.isLoading = true }
        await store.receive(.loaded(42)) {
            $0.value = 42
            $0.isLoading = false
        }
        await store.finish()
    }
}
