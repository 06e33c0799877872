import Logging
@_exported import Testing

// What MigratingFromSwidux1.md's "After" fragments assume: an app with counters and items,
// its writers and middleware, an effect to run, two ids.
struct Counter: Identifiable, Equatable, Sendable {
    let id: UUID
    var name: String
    var count = 0
}

struct Item: Identifiable, Equatable, Sendable {
    let id: UUID
    var title: String
}

struct AppState: Equatable {
    var counters = EntityStore<Counter>()
    var items = EntityStore<Item>()
}

enum CounterAction: Equatable, Sendable {
    case increment(Counter.ID)
}

enum AppAction: Equatable, Sendable {
    case incrementLater(Counter.ID)
    case counter(CounterAction)
    case loaded
}

struct AppEnvironment: Sendable {
    static func live() -> AppEnvironment { AppEnvironment() }
}

struct AppReducer: SwiduxReducer {
    func reduce(state: inout AppState, action: AppAction, environment: AppEnvironment) -> Effect<AppAction>? {
        nil
    }
}

struct ItemDatabase: Sendable {
    func upsert(_ item: Item) async throws {}
    func delete(id: Item.ID) async throws {}
}

let log = Logger(label: "app")

/// The state the middleware of the "drain and flush" fragment runs on.
@MainActor var state = AppState()

struct SnippetContext {
    let effect: Effect<AppAction>?
    let itemDB: ItemDatabase
    let writers: [StateWriter<AppState>]
    let persistence: PersistenceMiddleware<AppState>
    let id: UUID
    let otherID: UUID
}

typealias SnippetState = AppState
typealias SnippetAction = AppAction
typealias SnippetEnvironment = AppEnvironment
typealias SnippetEffectAction = AppAction
