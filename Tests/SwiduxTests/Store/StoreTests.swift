import Logging
import Testing
import SwiduxTestSupport
@testable import Swidux

final class RecordingMiddleware: Middleware {
    var log: [String] = []
    func beforeReduce(state: Int, action: Int) { log.append("before \(state) +\(action)") }
    func afterReduce(state: inout Int, action: Int) {
        log.append("after \(state)")
        if state > 100 { state = 100 }   // middleware may adjust the new state
    }
}

@MainActor let adder = Reduce<Int, Int, Void> { state, action, _ in state += action; return nil }

@MainActor
@Suite("Store", .timeLimit(.minutes(1)))
struct StoreTests {
    @Test func sendReducesSynchronously() {
        let store = Store(initialState: 0, reducer: adder, environment: ())
        store.send(2)
        store.send(3)
        #expect(store.state == 5)
    }

    @Test func middlewareRunsAroundEveryReduceInOrder() {
        let first = RecordingMiddleware()
        let second = RecordingMiddleware()
        let store = Store(initialState: 0, reducer: adder, environment: (), middleware: [first, second])
        store.send(1)
        store.send(200)
        #expect(first.log == ["before 0 +1", "after 1", "before 1 +200", "after 201"])
        #expect(second.log == ["before 0 +1", "after 1", "before 1 +200", "after 100"])
        #expect(store.state == 100)
    }

    @Test func loggingMiddlewareLogsActions() {
        let sink = CapturedLog()
        let logger = Logger(label: "test") { _ in sink }
        let store = Store(initialState: 0, reducer: adder, environment: (),
                          middleware: [LoggingMiddleware<Int, Int>(logger: logger, level: .info)])
        store.send(7)
        #expect(sink.messages == ["action: 7"])
    }

    @Test func scopedStoreReadsAndSendsThroughTheParent() {
        struct Parent: Equatable { var counter = 0; var other = "x" }
        enum ParentAction: Sendable { case counter(Int), other }
        let reducer = Reduce<Parent, ParentAction, Void> { state, action, _ in
            switch action {
            case .counter(let n): state.counter += n
            case .other: state.other += "x"
            }
            return nil
        }
        let store = Store(initialState: Parent(), reducer: reducer, environment: ())
        let child = store.scope(state: \.counter, embed: ParentAction.counter)
        child.send(5)
        #expect(child.state == 5)
        #expect(store.counter == 5)
        store.send(.counter(1))
        #expect(child.state == 6)
    }

    @Test func composedChildReducerLiftsEffects() async {
        struct Counter: SwiduxReducer {
            enum Action: Sendable { case increment, response(Int) }
            func reduce(state: inout Int, action: Action, environment: Int) -> Effect<Action>? {
                switch action {
                case .increment: return .run { .response(environment) }
                case .response(let n): state += n; return nil
                }
            }
        }
        struct App: Equatable { var counter = 0 }
        enum AppAction: Sendable { case counter(Counter.Action) }
        let app = Counter().lifted(
            state: \App.counter,
            extract: { (action: AppAction) in if case .counter(let a) = action { a } else { nil } },
            embed: AppAction.counter,
            environment: { (env: Int) in env }
        )
        let store = Store(initialState: App(), reducer: app, environment: 10)
        await store.send(.counter(.increment)).finish()
        #expect(store.counter == 10)
    }

    @Test func combineReducersRunsAllAndMergesEffects() {
        let double = Reduce<Int, Int, Void> { state, _, _ in state *= 2; return nil }
        let store = Store(initialState: 1, reducer: CombineReducers(adder, double), environment: ())
        store.send(2)
        #expect(store.state == 6)
    }

    @Test func eventChannelDeliversOnceToCurrentConsumers() async {
        let channel = EventChannel<String>()
        channel.emit("buffered")
        var first = channel.events.makeAsyncIterator()
        #expect(await first.next() == "buffered")
        var second = channel.events.makeAsyncIterator()
        channel.emit("both")
        #expect(await first.next() == "both")
        #expect(await second.next() == "both")
        #expect(channel.consumerCount == 2)
    }

    @Test func effectEmitsOneShotEvent() async {
        let channel = EventChannel<Int>()
        let store = Store(initialState: 0, reducer: Reduce<Int, Int, EventChannel<Int>> { state, action, events in
            state = action
            return .emit(action * 10, on: events)
        }, environment: channel)
        var events = channel.events.makeAsyncIterator()
        await store.send(4).finish()
        #expect(await events.next() == 40)
        #expect(store.state == 4)   // the event is not state
    }
}

