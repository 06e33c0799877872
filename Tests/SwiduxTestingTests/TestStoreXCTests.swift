import SwiduxTesting
import XCTest

/// The test store works in XCTest too: failures become `XCTFail`s at the caller's line.
@MainActor
final class TestStoreXCTests: XCTestCase {
    func testIncrementWithXCTest() async {
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
}
