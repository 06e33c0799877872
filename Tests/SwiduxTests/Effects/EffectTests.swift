import Clocks
import Testing
@testable import Swidux

/// A small feature to drive effects through a real Store.
struct EffectState: Equatable {
    var received: [String] = []
    var errors: [String] = []
}

enum EffectAction: Equatable, Sendable {
    case start(String, gate: Int)
    case startCancellable(String, gate: Int)
    case startCancellableKeepInFlight(String, gate: Int)
    case cancel
    case response(String)
    case fail(caught: Bool)
    case failWithCancellation
    case caught(String)
    case debounced(String)
    case sequence
    case merged
    case chain(Int)
}

struct EffectEnvironment: Sendable {
    let gates: [Int: Gate]
    let clock: any Clock<Duration>
}

struct CancelID: Hashable, Sendable {}

struct EffectReducer: SwiduxReducer {
    func reduce(state: inout EffectState, action: EffectAction, environment: EffectEnvironment) -> Effect<EffectAction>? {
        switch action {
        case .start(let value, let gate):
            let gate = environment.gates[gate]!
            return .run { await gate.wait(); return .response(value) }
        case .startCancellable(let value, let gate):
            let gate = environment.gates[gate]!
            return .cancellable(id: CancelID()) { await gate.wait(); return .response(value) }
        case .startCancellableKeepInFlight(let value, let gate):
            let gate = environment.gates[gate]!
            return Effect.run { await gate.wait(); return .response(value) }
                .cancellable(id: CancelID(), cancelInFlight: false)
        case .cancel:
            return .cancel(id: CancelID())
        case .response(let value):
            state.received.append(value)
            return nil
        case .fail(let caught):
            if caught {
                return .run { _ in throw TestError(message: "caught") } catch: { error, send in
                    await send(.caught("\(error)"))
                }
            }
            return .run { _ in throw TestError(message: "unexpected") }
        case .failWithCancellation:
            return .run { _ in throw CancellationError() }
        case .caught(let message):
            state.errors.append(message)
            return nil
        case .debounced(let value):
            return Effect.send(.response(value))
                .debounce(id: "debounce", for: .milliseconds(300), clock: environment.clock)
        case .sequence:
            return .concatenate(
                .run { .response("first") },
                .send(.response("second")),
                .run { send in await send(.response("third")) }
            )
        case .merged:
            return .merge(.send(.response("a")), .send(.response("b")), .none)
        case .chain(let n):
            state.received.append("chain\(n)")
            return n > 0 ? .send(.chain(n - 1)) : nil
        }
    }
}

@MainActor
func makeEffectStore(gates: Int = 2, clock: any Clock<Duration> = ContinuousClock(), errors: Recorder<String>? = nil)
    -> (Store<EffectState, EffectAction>, [Int: Gate])
{
    var map: [Int: Gate] = [:]
    for i in 0..<gates { map[i] = Gate() }
    let store = Store(
        initialState: EffectState(), reducer: EffectReducer(),
        environment: EffectEnvironment(gates: map, clock: clock),
        onUnexpectedError: { error in errors?.append("\(error)") }
    )
    return (store, map)
}

@MainActor
@Suite("Effects", .timeLimit(.minutes(1)))
struct EffectTests {
    @Test func runDeliversItsAction() async {
        let (store, gates) = makeEffectStore()
        let task = store.send(.start("one", gate: 0))
        #expect(store.received == [])
        await gates[0]!.open()
        await task.finish()
        #expect(store.received == ["one"])
    }

    @Test func cancelledEffectDeliversNothingEvenIfItsWorkCompletesLater() async {
        let (store, gates) = makeEffectStore()
        let task = store.send(.startCancellable("late", gate: 0))
        store.send(.cancel)
        await gates[0]!.open()          // the work completes after the cancellation
        await task.finish()
        #expect(store.received == [])
        #expect(await waitUntil { store.runningEffectCount == 0 })
    }

    @Test func storeTaskCancelDropsLateActions() async {
        let (store, gates) = makeEffectStore()
        let task = store.send(.start("late", gate: 0))
        task.cancel()
        await gates[0]!.open()
        await task.finish()
        #expect(store.received == [])
    }

    @Test func cancellableStartedTwiceKeepsOnlyTheNewest() async {
        let (store, gates) = makeEffectStore()
        let first = store.send(.startCancellable("old", gate: 0))
        let second = store.send(.startCancellable("new", gate: 1))
        await gates[1]!.open()
        await second.finish()
        await gates[0]!.open()           // the old one answers last
        await first.finish()
        #expect(store.received == ["new"])
    }

    @Test func staleResponseOfAnOverlappingRequestIsDropped() async {
        // Two overlapping requests; the older answers last: state holds the newer answer.
        let (store, gates) = makeEffectStore()
        let older = store.send(.startCancellable("older", gate: 0))
        let newer = store.send(.startCancellable("newer", gate: 1))
        await gates[1]!.open()
        await newer.finish()
        await gates[0]!.open()
        await older.finish()
        #expect(store.received == ["newer"])
    }

    @Test func cancellableWithoutCancelInFlightKeepsBothUntilCancelled() async {
        let (store, gates) = makeEffectStore()
        let a = store.send(.startCancellableKeepInFlight("a", gate: 0))
        let b = store.send(.startCancellableKeepInFlight("b", gate: 1))
        await gates[0]!.open()
        await a.finish()
        #expect(store.received == ["a"])
        store.send(.cancel)
        await gates[1]!.open()
        await b.finish()
        #expect(store.received == ["a"])
    }

    @Test func storeDeinitCancelsInFlightEffects() async {
        let cancelled = Recorder<Bool>()
        let started = Gate()
        weak var weakStore: Store<Int, Int>?
        do {
            let store = Store(initialState: 0, reducer: Reduce<Int, Int, Void> { state, action, _ in
                state += action
                return Effect { send in
                    await started.open()
                    do {
                        try await Task.sleep(for: .seconds(60))
                    } catch {
                        cancelled.append(true)
                    }
                    await send(1)
                }
            }, environment: ())
            weakStore = store
            store.send(1)
            await started.wait()
        }
        #expect(weakStore == nil)
        #expect(await waitUntil { cancelled.values == [true] })
    }

    @Test func throwingEffectReachesCatch() async {
        let errors = Recorder<String>()
        let (store, _) = makeEffectStore(errors: errors)
        await store.send(.fail(caught: true)).finish()
        #expect(store.errors == ["caught"])
        #expect(errors.values.isEmpty)
    }

    @Test func throwingEffectWithoutCatchReachesOnUnexpectedError() async {
        let errors = Recorder<String>()
        let (store, _) = makeEffectStore(errors: errors)
        await store.send(.fail(caught: false)).finish()
        #expect(store.errors == [])
        #expect(await waitUntil { errors.values == ["unexpected"] })
    }

    @Test func cancellationErrorIsSilent() async {
        let errors = Recorder<String>()
        let (store, _) = makeEffectStore(errors: errors)
        await store.send(.failWithCancellation).finish()
        for _ in 0..<50 { await Task.yield() }
        #expect(errors.values.isEmpty)
        #expect(store.errors.isEmpty)
    }

    @Test func debounceWaitsOnTheInjectedClockAndKeepsOnlyTheLast() async {
        let clock = SpyClock()
        let (store, _) = makeEffectStore(clock: clock)
        store.send(.debounced("a"))
        await clock.advance(by: .milliseconds(200), afterSleeps: 1)
        let last = store.send(.debounced("b"))
        await clock.advance(by: .milliseconds(299), afterSleeps: 2)
        #expect(store.received == [])
        await clock.advance(by: .milliseconds(1))
        await last.finish()
        #expect(store.received == ["b"])
    }

    @Test func concatenateRunsInOrder() async {
        let (store, _) = makeEffectStore()
        await store.send(.sequence).finish()
        #expect(store.received == ["first", "second", "third"])
    }

    @Test func mergeAndSendDeliverImmediately() {
        let (store, _) = makeEffectStore()
        store.send(.merged)
        #expect(store.received.sorted() == ["a", "b"])
    }

    @Test func sendChainsRunSynchronouslyAndLoopsAreCutOff() {
        let errors = Recorder<String>()
        let (store, _) = makeEffectStore(errors: errors)
        store.send(.chain(3))
        #expect(store.received == ["chain3", "chain2", "chain1", "chain0"])
        store.send(.chain(100_000))
        #expect(errors.values.count == 1)
        #expect(errors.values.first?.contains("dispatch loop") == true)
    }

    @Test func mapLiftsChildActions() async {
        enum Child: Sendable { case done(Int) }
        enum Parent: Equatable, Sendable { case child(Int) }
        let effect: Effect<Child> = .merge(.send(.done(1)), .run { .done(2) })
        let lifted = effect.map { (child: Child) -> Parent in
            switch child { case .done(let n): .child(n) }
        }
        let store = Store(initialState: [Parent](), reducer: Reduce<[Parent], Parent?, Void> { state, action, _ in
            if let action { state.append(action); return nil }
            return lifted.map { Optional($0) }
        }, environment: ())
        await store.send(nil).finish()
        #expect(store.state == [.child(1), .child(2)])
    }
}

@MainActor
@Suite("Effect bookkeeping", .timeLimit(.minutes(1)))
struct EffectBookkeepingTests {
    @Test func finishedEffectsAreNoLongerCountedAsRunning() async {
        let store = Store(initialState: 0, reducer: Reduce<Int, Int, Void> { state, action, _ in
            state += action
            return action > 0 ? .run { _ in } : nil     // finishes at once, maybe before it is registered
        }, environment: ())
        var tasks: [StoreTask] = []
        for _ in 0..<2000 { tasks.append(store.send(1)) }
        for task in tasks { await task.finish() }
        #expect(await waitUntil(seconds: 2) { store.runningEffectCount == 0 })
        #expect(store.state == 2000)
    }
}
