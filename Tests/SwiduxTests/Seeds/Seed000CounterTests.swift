import Testing
@testable import Swidux

// Seed 000 (strict MVI): Intent vs Action, service injection, cancellation, with MVIStore.

struct CounterState: Equatable {
    var count = 0
    var isLoading = false
    var error: String?
}

enum CounterIntent: Sendable { case incrementTapped, decrementTapped, resetTapped, cancelTapped }

enum CounterAction: Sendable {
    case incrementResponse(Result<Int, any Error>)
    case decrementResponse(Result<Int, any Error>)
    case resetResponse(Result<Int, any Error>)
}

protocol CounterServicing: Sendable {
    func increment() async throws -> Int
    func decrement() async throws -> Int
    func reset() async throws -> Int
}

struct CounterRequestID: Hashable, Sendable {}

func reduce(state: inout CounterState, intent: CounterIntent, service: any CounterServicing) -> Effect<CounterAction>? {
    switch intent {
    case .incrementTapped:
        state.isLoading = true
        return .cancellable(id: CounterRequestID()) {
            do { return .incrementResponse(.success(try await service.increment())) } catch { return .incrementResponse(.failure(error)) }
        }
    case .decrementTapped:
        state.isLoading = true
        return .cancellable(id: CounterRequestID()) {
            do { return .decrementResponse(.success(try await service.decrement())) } catch { return .decrementResponse(.failure(error)) }
        }
    case .resetTapped:
        state.isLoading = true
        return .run {
            do { return .resetResponse(.success(try await service.reset())) } catch { return .resetResponse(.failure(error)) }
        }
    case .cancelTapped:
        state.isLoading = false
        return .cancel(id: CounterRequestID())
    }
}

func reduce(state: inout CounterState, action: CounterAction) {
    switch action {
    case .incrementResponse(.success(let value)), .decrementResponse(.success(let value)), .resetResponse(.success(let value)):
        state.count = value
        state.isLoading = false
        state.error = nil
    case .incrementResponse(.failure(let error)), .decrementResponse(.failure(let error)), .resetResponse(.failure(let error)):
        state.isLoading = false
        state.error = "\(error)"
    }
}

struct StubCounterService: CounterServicing {
    func increment() async throws -> Int { 1 }
    func decrement() async throws -> Int { 0 }
    func reset() async throws -> Int { 0 }
}

struct FailingCounterService: CounterServicing {
    func increment() async throws -> Int { throw TestError(message: "offline") }
    func decrement() async throws -> Int { throw TestError(message: "offline") }
    func reset() async throws -> Int { throw TestError(message: "offline") }
}

/// Answers each call only when its gate opens; call n uses gate n.
actor GatedCounterService: CounterServicing {
    private var calls = 0
    var callCount: Int { calls }
    let gates: [Gate]
    let values: [Int]
    init(values: [Int]) { self.values = values; gates = values.map { _ in Gate() } }
    func increment() async throws -> Int {
        let n = calls; calls += 1
        await gates[n].wait()
        return values[n]
    }
    func decrement() async throws -> Int { try await increment() }
    func reset() async throws -> Int { 0 }
}

@MainActor
func makeCounterStore(service: any CounterServicing, errors: Recorder<String>? = nil) -> MVIStore<CounterState, CounterIntent, CounterAction> {
    MVIStore(
        initial: CounterState(),
        reduceIntent: { state, intent in reduce(state: &state, intent: intent, service: service) },
        reduceAction: { state, action in reduce(state: &state, action: action) },
        onUnexpectedError: { errors?.append("\($0)") }
    )
}

@MainActor
@Suite("Seed 000: MVI counter", .timeLimit(.minutes(1)))
struct Seed000CounterTests {
    @Test func incrementSetsLoadingAndReturnsEffect() {
        var state = CounterState()
        let effect = reduce(state: &state, intent: .incrementTapped, service: StubCounterService())
        #expect(state.isLoading)
        #expect(effect?.isNone == false)
    }

    @Test func successCompletesTheTransition() async {
        let store = makeCounterStore(service: StubCounterService())
        let task = store.send(.incrementTapped)
        #expect(store.state.isLoading)
        await task.finish()
        #expect(store.state == CounterState(count: 1, isLoading: false, error: nil))
    }

    @Test func failureIsMappedToAnExplicitFailureAction() async {
        let errors = Recorder<String>()
        let store = makeCounterStore(service: FailingCounterService(), errors: errors)
        await store.send(.resetTapped).finish()
        #expect(store.state == CounterState(count: 0, isLoading: false, error: "offline"))
        #expect(errors.values.isEmpty)
    }

    @Test func cancellationDropsTheResponse() async {
        let service = GatedCounterService(values: [7])
        let store = makeCounterStore(service: service)
        let task = store.send(.incrementTapped)
        store.send(.cancelTapped)
        await service.gates[0].open()
        await task.finish()
        #expect(store.state == CounterState(count: 0, isLoading: false, error: nil))
    }

    @Test func staleResponseLosesToTheNewerRequest() async {
        let service = GatedCounterService(values: [1, 2])
        let store = makeCounterStore(service: service)
        let older = store.send(.incrementTapped)
        // The first request must reach the service (and take gate 0) before the second starts.
        while await service.callCount < 1 { await Task.yield() }
        let newer = store.send(.incrementTapped)
        while await service.callCount < 2 { await Task.yield() }
        await service.gates[1].open()
        await newer.finish()
        await service.gates[0].open()
        await older.finish()
        #expect(store.state.count == 2)
        #expect(!store.state.isLoading)
    }

    @Test func composedReducersLiftChildEffects() async {
        struct AppState: Equatable { var counter = CounterState() }
        enum AppIntent: Sendable { case counter(CounterIntent) }
        enum AppAction: Sendable { case counter(CounterAction) }
        let service = StubCounterService()
        let store = MVIStore<AppState, AppIntent, AppAction>(
            initial: AppState(),
            reduceIntent: { state, intent in
                switch intent {
                case .counter(let intent):
                    return reduce(state: &state.counter, intent: intent, service: service)?.map(AppAction.counter)
                }
            },
            reduceAction: { state, action in
                switch action {
                case .counter(let action): reduce(state: &state.counter, action: action)
                }
            }
        )
        await store.send(.counter(.incrementTapped)).finish()
        #expect(store.state.counter.count == 1)
    }
}
