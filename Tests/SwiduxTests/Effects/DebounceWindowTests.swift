import Testing
@testable import Swidux

enum DebounceAction: Equatable, Sendable {
    case stored, concatenated, search(String, gate: Int), fired(String)
}

struct SearchCancelID: Hashable, Sendable {}

struct DebounceEnvironment: Sendable {
    let clock: SpyClock
    let gates: [Int: Gate]
    /// Built once, returned by every `.stored`.
    let storedEffect: Effect<DebounceAction>
}

@MainActor func debounceStore(clock: SpyClock, gates: [Int: Gate] = [:]) -> Store<[String], DebounceAction> {
    let environment = DebounceEnvironment(
        clock: clock, gates: gates,
        storedEffect: Effect.send(.fired("stored")).debounce(id: "stored", for: .seconds(1), clock: clock)
    )
    return Store(initialState: [], reducer: Reduce<[String], DebounceAction, DebounceEnvironment> { state, action, env in
        switch action {
        case .stored:
            return env.storedEffect
        case .concatenated:
            let clock = env.clock
            return .concatenate(
                .run { _ in try await clock.sleep(for: .seconds(2)) },
                Effect.send(.fired("c")).debounce(id: "c", for: .seconds(1), clock: clock)
            )
        case .search(let query, let gate):
            let gate = env.gates[gate]!
            // Cancel the stale search, debounce the new one: the same id on both.
            return Effect.cancellable(id: SearchCancelID()) {
                await gate.wait()
                return .fired(query)
            }
            .debounce(id: SearchCancelID(), for: .milliseconds(300), clock: env.clock)
        case .fired(let value):
            state.append(value)
            return nil
        }
    }, environment: environment)
}

@MainActor
@Suite("Debounce windows", .timeLimit(.minutes(1)))
struct DebounceWindowTests {
    @Test func aStoredDebounceEffectWaitsEveryTimeItStarts() async {
        let clock = SpyClock()
        let store = debounceStore(clock: clock)
        await clock.advance(by: .seconds(5))          // long after the effect was built
        let first = store.send(.stored)
        #expect(await waitUntil { clock.sleepCount == 1 })
        #expect(store.state == [])
        await clock.advance(by: .seconds(1))
        await first.finish()
        #expect(store.state == ["stored"])

        let second = store.send(.stored)
        #expect(await waitUntil { clock.sleepCount == 2 })
        #expect(store.state == ["stored"])
        await clock.advance(by: .seconds(1))
        await second.finish()
        #expect(store.state == ["stored", "stored"])
    }

    @Test func aDebounceInsideConcatenateOpensAfterThePreviousMember() async {
        let clock = SpyClock()
        let store = debounceStore(clock: clock)
        let task = store.send(.concatenated)
        await clock.advance(by: .seconds(2), afterSleeps: 1)
        #expect(await waitUntil { clock.sleepCount == 2 })   // the debounce window is open
        #expect(store.state == [])
        await clock.advance(by: .milliseconds(999))
        for _ in 0..<50 { await Task.yield() }
        #expect(store.state == [])
        await clock.advance(by: .milliseconds(1))
        await task.finish()
        #expect(store.state == ["c"])
    }

    @Test func cancellableWithTheSameIdAsItsDebounceDeliversTheNewest() async {
        let clock = SpyClock()
        let gates = [0: Gate(), 1: Gate()]
        for gate in gates.values { await gate.open() }
        let store = debounceStore(clock: clock, gates: gates)
        let older = store.send(.search("a", gate: 0))
        let newer = store.send(.search("ab", gate: 1))
        await clock.advance(by: .milliseconds(300), afterSleeps: 2)
        await newer.finish()
        await older.finish()
        #expect(store.state == ["ab"])
    }

    @Test func aNewDebouncedSearchCancelsTheStaleSearchInFlight() async {
        let clock = SpyClock()
        let gates = [0: Gate(), 1: Gate()]
        let store = debounceStore(clock: clock, gates: gates)
        let older = store.send(.search("a", gate: 0))
        await clock.advance(by: .milliseconds(300), afterSleeps: 1)   // "a" is now searching
        let newer = store.send(.search("ab", gate: 1))
        await clock.advance(by: .milliseconds(300), afterSleeps: 2)
        await gates[1]!.open()
        await newer.finish()
        await gates[0]!.open()               // the stale answer comes last
        await older.finish()
        #expect(store.state == ["ab"])
    }
}
