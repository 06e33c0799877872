// SwiduxTesting: an exhaustive `TestStore`, an in-memory persistence backend, and the
// test clock. Importing it is enough in a test file: it re-exports the core and Clocks.
//
// ```swift
// import SwiduxTesting
// import Testing
//
// @MainActor @Test func increment() async {
//     let clock = TestClock()
//     let store = TestStore(initialState: CounterState(), reducer: CounterReducer(),
//                           environment: CounterEnvironment(clock: clock))
//     await store.send(.incrementTapped) { $0.isLoading = true }
//     await clock.advance(by: .seconds(1))
//     await store.receive(.incrementResponse(.success(1))) { $0.count = 1; $0.isLoading = false }
//     await store.finish()
// }
// ```

@_exported import Clocks
@_exported import Swidux
