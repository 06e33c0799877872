import Clocks
import Swidux
import SwiduxTesting
import Testing

/// `.start` → `.send(.tick)`, and `.tick` runs a timer on the test clock that sends `.fired`.
struct FollowUpReducer: SwiduxReducer {
    enum Action: Equatable, Sendable { case start, tick, fired }
    func reduce(state: inout Int, action: Action, environment: TestClock<Duration>) -> Effect<Action>? {
        switch action {
        case .start: return .send(.tick)
        case .tick:
            return .run { send in
                try await environment.sleep(for: .seconds(1))
                await send(.fired)
            }
        case .fired:
            state += 1
            return nil
        }
    }
}

@MainActor
@Suite struct FollowUpChainTests {
    @Test func cancellingTheSentActionStopsItsFollowUpsEffects() async {
        let clock = TestClock()
        let store = TestStore(initialState: 0, reducer: FollowUpReducer(), environment: clock)
        let task = await store.send(.start)
        await store.receive(.tick)
        task.cancel()
        await clock.advance(by: .seconds(2))
        await store.finish()
    }

    @Test func finishingTheSentActionWaitsForItsFollowUpsEffects() async {
        let clock = TestClock()
        let store = TestStore(initialState: 0, reducer: FollowUpReducer(), environment: clock)
        let task = await store.send(.start)
        await store.receive(.tick)
        await clock.waitForSleepers()          // the timer's task started sleeping
        await clock.advance(by: .seconds(1))
        await task.finish()
        await store.receive(.fired) { $0 = 1 }
        await store.finish()
    }
}
