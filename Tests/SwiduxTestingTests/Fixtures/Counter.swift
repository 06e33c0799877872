import SwiduxTesting

// Seed 000's counter, on the generic store: intents (`…Tapped`) and effect results
// (`…Response`) are cases of one action enum; requests are cancellable, so a newer
// request drops the older one's late response.

struct CounterState: Equatable {
    var count = 0
    var isLoading = false
    var error: String?
}

struct CounterError: Error, Equatable {
    var message: String
}

enum CounterAction: Equatable {
    case incrementTapped
    case decrementTapped
    case resetTapped
    case cancelTapped
    case incrementResponse(Result<Int, CounterError>)
    case decrementResponse(Result<Int, CounterError>)
    case resetResponse(Result<Int, CounterError>)
}

protocol CounterServicing: Sendable {
    func increment() async throws -> Int
    func decrement() async throws -> Int
    func reset() async throws -> Int
}

struct CounterEnvironment {
    var service: any CounterServicing
}

enum CounterRequest: Hashable, Sendable {
    case inFlight
}

struct CounterReducer: SwiduxReducer {
    func reduce(state: inout CounterState, action: CounterAction, environment: CounterEnvironment) -> Effect<CounterAction>? {
        let service = environment.service
        switch action {
        case .incrementTapped:
            state.isLoading = true
            return Self.request(service.increment, CounterAction.incrementResponse)
        case .decrementTapped:
            state.isLoading = true
            return Self.request(service.decrement, CounterAction.decrementResponse)
        case .resetTapped:
            state.isLoading = true
            return Self.request(service.reset, CounterAction.resetResponse)
        case .cancelTapped:
            state.isLoading = false
            return .cancel(id: CounterRequest.inFlight)
        case .incrementResponse(.success(let value)),
             .decrementResponse(.success(let value)),
             .resetResponse(.success(let value)):
            state.count = value
            state.isLoading = false
            state.error = nil
        case .incrementResponse(.failure(let error)),
             .decrementResponse(.failure(let error)),
             .resetResponse(.failure(let error)):
            state.isLoading = false
            state.error = error.message
        }
        return nil
    }

    /// One request at a time: starting one cancels the one in flight.
    private static func request(
        _ call: @escaping @Sendable () async throws -> Int,
        _ response: @escaping @Sendable (Result<Int, CounterError>) -> CounterAction
    ) -> Effect<CounterAction> {
        .cancellable(id: CounterRequest.inFlight) {
            do {
                return response(.success(try await call()))
            } catch let error as CounterError {
                return response(.failure(error))
            }
        }
    }
}

/// Answers at once (seed 000's `StubCounterService`).
struct StubCounterService: CounterServicing {
    var value = 1
    func increment() async throws -> Int { value }
    func decrement() async throws -> Int { value - 2 }
    func reset() async throws -> Int { 0 }
}

/// Fails every call.
struct FailingCounterService: CounterServicing {
    func increment() async throws -> Int { throw CounterError(message: "offline") }
    func decrement() async throws -> Int { throw CounterError(message: "offline") }
    func reset() async throws -> Int { throw CounterError(message: "offline") }
}

/// Answers each call only when the test says so, and ignores cancellation: a cancelled
/// request's response really does arrive late, and the store must drop it.
actor ManualCounterService: CounterServicing {
    private var waiting: [Int: CheckedContinuation<Int, Never>] = [:]
    private var calls = 0

    func increment() async throws -> Int { await nextCall() }
    func decrement() async throws -> Int { await nextCall() }
    func reset() async throws -> Int { await nextCall() }

    private func nextCall() async -> Int {
        calls += 1
        let call = calls
        return await withCheckedContinuation { waiting[call] = $0 }
    }

    /// Answers call number `call` (1-based) with `value`, once that call was made.
    func respond(toCall call: Int, with value: Int) async {
        while waiting[call] == nil { await Task.yield() }
        waiting.removeValue(forKey: call)?.resume(returning: value)
    }
}
