@_exported import SwiduxTesting
@_exported import Testing

// What Testing.md's examples assume besides the counter they declare: its environment and
// services, a search feature, a to-do feature with a middleware, and the test stores its
// fragments use (one type per store, each with a `store`).
struct CounterError: Error, Equatable, Sendable {
    var message: String
}

enum CounterRequest: Hashable, Sendable {
    case inFlight
}

protocol CounterService: Sendable {
    func increment() async throws -> Int
}

struct CounterEnvironment: Sendable {
    var service: any CounterService
}

struct StubCounterService: CounterService {
    var value = 1
    func increment() async throws -> Int { value }
}

struct FailingCounterService: CounterService {
    func increment() async throws -> Int { throw CounterError(message: "offline") }
}

/// Answers each call when the test says so.
actor ManualCounterService: CounterService {
    private var calls = 0
    private var waiting: [Int: CheckedContinuation<Int, Never>] = [:]

    func increment() async throws -> Int {
        calls += 1
        let call = calls
        return await withCheckedContinuation { waiting[call] = $0 }
    }

    func respond(toCall call: Int, with value: Int) {
        waiting.removeValue(forKey: call)?.resume(returning: value)
    }
}

struct SearchState: Equatable {
    var query = ""
    var results: [String] = []
}

enum SearchAction: Equatable, Sendable {
    case queryChanged(String)
    case response([String])
}

struct SearchEnvironment: Sendable {
    var clock: any Clock<Duration>
    var search: @Sendable (String) async throws -> [String]
}

struct SearchReducer: SwiduxReducer {
    func reduce(state: inout SearchState, action: SearchAction, environment: SearchEnvironment) -> Effect<SearchAction>? {
        switch action {
        case .queryChanged(let query):
            state.query = query
            return .run { .response(try await environment.search(query)) }
                .debounce(id: "search", for: .milliseconds(300), clock: environment.clock)
        case .response(let results):
            state.results = results
            return nil
        }
    }
}

struct Todo: Identifiable, Equatable, Sendable {
    let id: UUID
    var title: String
}

let milk = Todo(id: UUID(), title: "Milk")

struct TodoState: Equatable {
    var todos = EntityStore<Todo>()
    var stamp = 0
}

enum TodoAction: Equatable, Sendable {
    case add(Todo)
}

@MainActor let todoReducer = Reduce<TodoState, TodoAction, Void> { state, action, _ in
    switch action {
    case .add(let todo):
        state.todos[todo.id] = todo
    }
    return nil
}

/// Counts the to-dos added, in `afterReduce`.
final class Stamp: Middleware {
    func afterReduce(state: inout TodoState, action: TodoAction) {
        if case .add = action { state.stamp += 1 }
    }
}

struct CounterTest {
    let store: TestStore<CounterState, CounterAction>
    let searchStore: TestStore<SearchState, SearchAction>
}

struct TodoTest {
    let store: TestStore<TodoState, TodoAction>
}

enum TimerAction: Equatable, Sendable {
    case start, tick, fired
}

struct TimerTest {
    let store: TestStore<Int, TimerAction>
}

struct LoginState: Equatable {
    var isLoggedIn = false
    var name = ""
}

enum LoginAction: Equatable, Sendable {
    case login
}

struct LoginTest {
    let store: TestStore<LoginState, LoginAction>
}

enum BumpAction: Equatable, Sendable {
    case bump
}

struct BumpState: Equatable {
    var count = 0
}

struct BumpTest {
    let store: TestStore<BumpState, BumpAction>
}
