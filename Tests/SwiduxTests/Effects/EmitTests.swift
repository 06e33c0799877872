import Testing
@testable import Swidux

@MainActor
@Suite("Emit", .timeLimit(.minutes(1)))
struct EmitTests {
    func makeStore(_ channel: EventChannel<Int>) -> Store<Int, Int> {
        Store(initialState: 0, reducer: Reduce<Int, Int, EventChannel<Int>> { state, action, events in
            state = action
            return .emit(action, on: events)
        }, environment: channel)
    }

    @Test func eventsArriveInDispatchOrder() async {
        let rounds = 20, count = 50
        for _ in 0..<rounds {
            let channel = EventChannel<Int>()
            let store = makeStore(channel)
            var events = channel.events.makeAsyncIterator()
            var tasks: [StoreTask] = []
            for i in 0..<count { tasks.append(store.send(i)) }
            var received: [Int] = []
            for _ in 0..<count { if let event = await events.next() { received.append(event) } }
            #expect(received == Array(0..<count))
            for task in tasks { await task.finish() }
        }
    }

    @Test func aCancelledEmitDeliversNothing() async {
        let channel = EventChannel<Int>()
        let store = makeStore(channel)
        var events = channel.events.makeAsyncIterator()
        store.send(1).cancel()
        await store.send(2).finish()
        #expect(await events.next() == 2)
    }

    @Test func anEmitCancelledByIdBeforeItsTurnDeliversNothing() async {
        let channel = EventChannel<Int>()
        let gate = Gate()
        let store = Store(initialState: 0, reducer: Reduce<Int, Int, EventChannel<Int>> { _, action, events in
            switch action {
            case 1: return .concatenate(.run { _ in await gate.wait() }, .emit(1, on: events)).cancellable(id: "e")
            case 2: return .cancel(id: "e")
            default: return .emit(action, on: events)
            }
        }, environment: channel)
        var events = channel.events.makeAsyncIterator()
        let first = store.send(1)
        store.send(2)
        await gate.open()
        await first.finish()
        await store.send(3).finish()
        #expect(await events.next() == 3)
    }

    @Test func anEmitPendingWhenTheStoreIsReleasedDeliversNothing() async {
        let channel = EventChannel<Int>()
        var events = channel.events.makeAsyncIterator()
        var store: Store<Int, Int>? = makeStore(channel)
        store!.send(1)
        store = nil                     // releasing the last store cancels its effects
        for _ in 0..<50 { await Task.yield() }
        channel.emit(2)
        #expect(await events.next() == 2)
        _ = store
    }
}
