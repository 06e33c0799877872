import Testing
@testable import Swidux

// Seed 003: Intent -> Action -> Processor -> Result -> Reducer, the max(0, …) rule, and
// navigation to detail — as a one-shot event and as state.

enum ProcessorIntent: Sendable {
    case userIncremented, userDecremented, navigateToDetail
    var action: ProcessorAction {
        switch self {
        case .userIncremented: .increment
        case .userDecremented: .decrement
        case .navigateToDetail: .navigateToDetail
        }
    }
}
enum ProcessorAction: Sendable { case increment, decrement, navigateToDetail }
enum ProcessorResult: Equatable, Sendable { case counterUpdated(Int), navigateToDetail }
enum CounterRoute: Equatable, Sendable { case detail }

struct CounterNetwork: Sendable { func fetchMultipleCount() -> Int { 10 } }

struct CounterProcessor: Sendable {
    var network = CounterNetwork()
    func process(_ action: ProcessorAction) -> ProcessorResult {
        switch action {
        case .increment: .counterUpdated(network.fetchMultipleCount())
        case .decrement: .counterUpdated(-network.fetchMultipleCount())
        case .navigateToDetail: .navigateToDetail
        }
    }
}

struct ProcessorState: Equatable {
    var count = 0
    var path: [CounterRoute] = []
}

struct ProcessorEnvironment: Sendable {
    var processor = CounterProcessor()
    var navigation = EventChannel<CounterRoute>()
}

/// The store's reducer: intent → action → processor → result → state (or navigation).
struct ProcessorCounterReducer: SwiduxReducer {
    func reduce(state: inout ProcessorState, action intent: ProcessorIntent, environment: ProcessorEnvironment) -> Effect<ProcessorIntent>? {
        switch environment.processor.process(intent.action) {
        case .counterUpdated(let delta):
            state.count = max(0, state.count + delta)
            return nil
        case .navigateToDetail:
            state.path.append(.detail)                         // navigation as state
            return .emit(.detail, on: environment.navigation)  // and as a one-shot event
        }
    }
}

@MainActor
@Suite("Seed 003: processor counter", .timeLimit(.minutes(1)))
struct Seed003ProcessorCounterTests {
    @Test func processorMapsActionsToResults() {
        let processor = CounterProcessor()
        #expect(processor.process(.increment) == .counterUpdated(10))
        #expect(processor.process(.decrement) == .counterUpdated(-10))
        #expect(processor.process(.navigateToDetail) == .navigateToDetail)
    }

    @Test func storeFlowNeverGoesNegative() {
        let store = Store(initialState: ProcessorState(), reducer: ProcessorCounterReducer(), environment: ProcessorEnvironment())
        #expect(store.count == 0)
        store.send(.userIncremented)
        #expect(store.count == 10)
        store.send(.userDecremented)
        #expect(store.count == 0)
        store.send(.userDecremented)
        #expect(store.count == 0)
        store.send(.userDecremented)
        #expect(store.count == 0)
    }

    @Test func navigationIsDeliveredOnceAsAnEventAndKeptAsState() async {
        let environment = ProcessorEnvironment()
        let store = Store(initialState: ProcessorState(), reducer: ProcessorCounterReducer(), environment: environment)
        var routes = environment.navigation.events.makeAsyncIterator()
        await store.send(.navigateToDetail).finish()
        #expect(await routes.next() == .detail)
        #expect(store.path == [.detail])
        #expect(store.count == 0)
    }
}
