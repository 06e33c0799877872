import Logging

// What MVI.md's fragments assume: the counter feature, its service, an app that
// composes it.
struct CounterState: Equatable {
    var count = 0
}

enum CounterIntent: Sendable {
    case incrementTapped
}

enum CounterAction: Sendable {
    case incremented(Int)
}

protocol CounterService: Sendable {
    func increment() async throws -> Int
}

func reduce(state: inout CounterState, intent: CounterIntent, service: any CounterService) -> Effect<CounterAction>? {
    .run { .incremented(try await service.increment()) }
}

func reduce(state: inout CounterState, action: CounterAction) {
    if case .incremented(let count) = action { state.count = count }
}

func counterReduce(state: inout CounterState, intent: CounterIntent, service: any CounterService) -> Effect<CounterAction>? {
    reduce(state: &state, intent: intent, service: service)
}

struct Services {
    let counter: any CounterService
}

struct AppState {
    var counter = CounterState()
}

enum AppIntent: Sendable {
    case counter(CounterIntent)
}

enum AppAction: Sendable {
    case counter(CounterAction)
}

struct SnippetContext {
    let service: any CounterService
    let services: Services
    let logger: Logger
}

typealias SnippetState = AppState
typealias SnippetAction = AppIntent
typealias SnippetEnvironment = Void
typealias SnippetEffectAction = AppAction
