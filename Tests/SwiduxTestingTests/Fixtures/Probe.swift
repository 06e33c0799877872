import SwiduxTesting

// A small reducer whose actions each exercise one TestStore path.

struct ProbeState: Equatable {
    var count = 0
    var value: Int?
    var isLoading = false
}

enum ProbeAction: Equatable {
    case bump
    case bumpTwice          // bumps, then `.send(.bump)`: a received action at once
    case noop
    case load               // an effect that answers `.loaded(42)` at once
    case loaded(Int)
    case wait               // an effect that sleeps 10 s on the test clock
    case fail               // an effect that throws with no `catch`
}

struct ProbeError: Error, Equatable {}

struct ProbeEnvironment {
    var clock: any Clock<Duration>
}

struct ProbeReducer: SwiduxReducer {
    func reduce(state: inout ProbeState, action: ProbeAction, environment: ProbeEnvironment) -> Effect<ProbeAction>? {
        switch action {
        case .bump:
            state.count += 1
            return nil
        case .bumpTwice:
            state.count += 1
            return .send(.bump)
        case .noop:
            return nil
        case .load:
            state.isLoading = true
            return .run { .loaded(42) }
        case .loaded(let value):
            state.value = value
            state.isLoading = false
            return nil
        case .wait:
            let clock = environment.clock
            return .run { send in
                try await clock.sleep(for: .seconds(10))
                await send(.loaded(10))
            }
        case .fail:
            return .run { _ in throw ProbeError() }
        }
    }
}

extension TestStore where State == ProbeState, Action == ProbeAction {
    static func probe(clock: TestClock<Duration> = TestClock()) -> TestStore {
        TestStore(initialState: ProbeState(), reducer: ProbeReducer(), environment: ProbeEnvironment(clock: clock))
    }
}
