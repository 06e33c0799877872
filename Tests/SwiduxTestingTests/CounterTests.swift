import SwiduxTesting
import Testing

/// Seed 000's "Testing Expectations", written as TestStore tests: intent transitions,
/// success and failure responses, cancellation and stale responses.
@MainActor
@Suite struct CounterTests {
    @Test func incrementSetsLoadingThenAppliesTheResponse() async {
        let store = TestStore(
            initialState: CounterState(),
            reducer: CounterReducer(),
            environment: CounterEnvironment(service: StubCounterService(value: 1))
        )
        await store.send(.incrementTapped) { $0.isLoading = true }
        await store.receive(.incrementResponse(.success(1))) {
            $0.count = 1
            $0.isLoading = false
        }
        await store.finish()
    }

    @Test func decrementAndReset() async {
        let store = TestStore(
            initialState: CounterState(count: 5),
            reducer: CounterReducer(),
            environment: CounterEnvironment(service: StubCounterService(value: 1))
        )
        await store.send(.decrementTapped) { $0.isLoading = true }
        await store.receive(.decrementResponse(.success(-1))) {
            $0.count = -1
            $0.isLoading = false
        }
        await store.send(.resetTapped) { $0.isLoading = true }
        await store.receive(.resetResponse(.success(0))) {
            $0.count = 0
            $0.isLoading = false
        }
        await store.finish()
    }

    @Test func failureShowsTheErrorAndStopsLoading() async {
        let store = TestStore(
            initialState: CounterState(count: 3),
            reducer: CounterReducer(),
            environment: CounterEnvironment(service: FailingCounterService())
        )
        await store.send(.incrementTapped) { $0.isLoading = true }
        await store.receive(.incrementResponse(.failure(CounterError(message: "offline")))) {
            $0.isLoading = false
            $0.error = "offline"
        }
        #expect(store.state.count == 3)
        await store.finish()
    }

    @Test func successClearsAPreviousError() async {
        let store = TestStore(
            initialState: CounterState(error: "offline"),
            reducer: CounterReducer(),
            environment: CounterEnvironment(service: StubCounterService(value: 7))
        )
        await store.send(.incrementTapped) { $0.isLoading = true }
        await store.receive(.incrementResponse(.success(7))) {
            $0.count = 7
            $0.isLoading = false
            $0.error = nil
        }
        await store.finish()
    }

    @Test func cancelDropsTheResponse() async {
        let service = ManualCounterService()
        let store = TestStore(
            initialState: CounterState(),
            reducer: CounterReducer(),
            environment: CounterEnvironment(service: service)
        )
        await store.send(.incrementTapped) { $0.isLoading = true }
        await store.send(.cancelTapped) { $0.isLoading = false }
        await service.respond(toCall: 1, with: 1)   // arrives after the cancel: dropped
        await store.finish()                        // no action was received
        #expect(store.state.count == 0)
    }

    @Test func aNewerRequestDropsTheStaleResponseOfTheOlderOne() async {
        let service = ManualCounterService()
        let store = TestStore(
            initialState: CounterState(),
            reducer: CounterReducer(),
            environment: CounterEnvironment(service: service)
        )
        await store.send(.incrementTapped) { $0.isLoading = true }
        await store.send(.incrementTapped)             // still loading: no change
        await service.respond(toCall: 2, with: 2)      // the newer request answers first
        await store.receive(.incrementResponse(.success(2))) {
            $0.count = 2
            $0.isLoading = false
        }
        await service.respond(toCall: 1, with: 1)      // the stale response: never received
        await store.finish()
        #expect(store.state.count == 2)
    }
}
