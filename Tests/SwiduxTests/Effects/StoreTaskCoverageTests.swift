import Testing
@testable import Swidux

enum ChainAction: Equatable, Sendable { case a, b, c, d, later }

/// `.a` → `.send(.b)` → `.b` runs an effect that sends `.c` after a gate opens;
/// `.d` → `.merge(.send(.a), .send(.a))` (two nested chains); `.c` → `.run` that sends `.later`.
@MainActor func chainStore(gate: Gate, cancelled: Recorder<String>? = nil) -> Store<[ChainAction], ChainAction> {
    Store(initialState: [], reducer: Reduce<[ChainAction], ChainAction, Void> { state, action, _ in
        state.append(action)
        switch action {
        case .a: return .send(.b)
        case .b:
            return .run { send in
                await gate.wait()
                if Task.isCancelled { cancelled?.append("b") }
                await send(.c)
            }
        case .d: return .merge(.send(.a), .send(.a))
        case .c, .later: return nil
        }
    }, environment: ())
}

@MainActor
@Suite("StoreTask covers synchronous follow-ups", .timeLimit(.minutes(1)))
struct StoreTaskCoverageTests {
    @Test func finishWaitsForEffectsOfImmediateFollowUps() async {
        let gate = Gate()
        let store = chainStore(gate: gate)
        let task = store.send(.a)
        let finished = Recorder<Bool>()
        Task { await task.finish(); finished.append(true) }
        for _ in 0..<100 { await Task.yield() }
        #expect(finished.values.isEmpty)     // `.b`'s effect is still waiting
        await gate.open()
        await task.finish()
        #expect(store.state == [.a, .b, .c])
    }

    @Test func finishWaitsForFollowUpsOfFollowUps() async {
        let gate = Gate()
        let store = chainStore(gate: gate)
        let task = store.send(.d)
        let finished = Recorder<Bool>()
        Task { await task.finish(); finished.append(true) }
        for _ in 0..<100 { await Task.yield() }
        #expect(finished.values.isEmpty)
        await gate.open()
        await task.finish()
        #expect(store.state.filter { $0 == .c }.count == 2)
    }

    @Test func cancelStopsEffectsOfImmediateFollowUps() async {
        let gate = Gate()
        let store = chainStore(gate: gate)
        let task = store.send(.d)
        task.cancel()
        await gate.open()
        await task.finish()
        #expect(await waitUntil { store.runningEffectCount == 0 })
        #expect(store.state == [.d, .a, .b, .a, .b])
    }

    /// `.refresh` → an effect sends `.loaded` → `.loaded`'s own effect, held by `gate`,
    /// sends `.saved` (`.refreshable { await store.send(.refresh).finish() }`).
    func refreshStore(gate: Gate) -> Store<[String], String> {
        Store(initialState: [], reducer: Reduce<[String], String, Void> { state, action, _ in
            state.append(action)
            switch action {
            case "refresh": return .run { send in await send("loaded") }
            case "loaded": return .run { send in await gate.wait(); await send("saved") }
            case "saved": return .run { send in await send("done") }
            default: return nil
            }
        }, environment: ())
    }

    @Test func finishWaitsForTheEffectsOfActionsItsEffectsSend() async {
        // Issue 28, item 10: as TCA's `StoreTask`, recursively. (It used to return once the
        // effect that sent `loaded` had finished.)
        let gate = Gate()
        let store = refreshStore(gate: gate)
        let task = store.send("refresh")
        let finished = Recorder<Bool>()
        Task { await task.finish(); finished.append(true) }
        #expect(await waitUntil { store.state == ["refresh", "loaded"] })
        for _ in 0..<100 { await Task.yield() }
        #expect(finished.values.isEmpty)     // `loaded`'s effect is still waiting
        await gate.open()
        await task.finish()
        #expect(store.state == ["refresh", "loaded", "saved", "done"])
    }

    @Test func cancelStopsTheEffectsOfActionsItsEffectsSent() async {
        let gate = Gate()
        let store = refreshStore(gate: gate)
        let task = store.send("refresh")
        #expect(await waitUntil { store.state == ["refresh", "loaded"] })
        task.cancel()
        await gate.open()
        await task.finish()
        #expect(await waitUntil { store.runningEffectCount == 0 })
        #expect(store.state == ["refresh", "loaded"])   // `saved` is not delivered
    }

    @Test func finishWaitsForEveryActionALongEffectSent() async {
        // An effect sending many actions with effects (more than the followers kept before
        // the finished ones are dropped): `finish()` waits for the last one's effect.
        let store = Store(initialState: 0, reducer: Reduce<Int, Int, Void> { state, action, _ in
            if action < 0 { state += 1; return nil }
            if action == 0 {
                return .run { send in for _ in 0..<200 { await send(-1); await send(1) } }
            }
            return .run { send in await send(-1) }
        }, environment: ())
        await store.send(0).finish()
        #expect(store.state == 400)
    }
}

@MainActor
@Suite("Follow-ups inside composed effects", .timeLimit(.minutes(1)))
struct FollowUpCompositionTests {
    /// `.d` → `.concatenate(.send(.b), .send(.a))`: `.b` starts an effect held by `gate`.
    func makeStore(gate: Gate) -> Store<[ChainAction], ChainAction> {
        Store(initialState: [], reducer: Reduce<[ChainAction], ChainAction, Void> { state, action, _ in
            state.append(action)
            switch action {
            case .d: return .concatenate(.send(.b), .send(.later))
            case .b: return .run { send in await gate.wait(); await send(.c) }
            default: return nil
            }
        }, environment: ())
    }

    @Test func aConcatenatedSendDoesNotWaitForTheEffectsOfItsAction() async {
        // A `.send` reached after the effect started is "sent later": the next member does
        // not wait for what that action started; the sender's task does (item 10).
        let gate = Gate()
        let store = makeStore(gate: gate)
        let task = store.send(.d)
        #expect(await waitUntil { store.state == [.d, .b, .later] })
        let finished = Recorder<Bool>()
        Task { await task.finish(); finished.append(true) }
        for _ in 0..<100 { await Task.yield() }
        #expect(finished.values.isEmpty)          // `.b`'s effect is still waiting
        #expect(store.runningEffectCount == 1)
        await gate.open()
        await task.finish()
        #expect(store.state == [.d, .b, .later, .c])
    }

    @Test func aQueuedActionsTaskCoversItsEffects() async {
        final class Keeper: Middleware {
            var task: StoreTask?
            weak var store: Store<[ChainAction], ChainAction>?
            func beforeReduce(state: [ChainAction], action: ChainAction) {
                if action == .later { task = store?.send(.b) }   // queued
            }
        }
        let gate = Gate()
        let keeper = Keeper()
        let store = Store(initialState: [ChainAction](), reducer: Reduce<[ChainAction], ChainAction, Void> { state, action, _ in
            state.append(action)
            return action == .b ? .run { send in await gate.wait(); await send(.c) } : nil
        }, environment: (), middleware: [keeper])
        keeper.store = store
        store.send(.later)
        #expect(store.state == [.later, .b])
        let queued = keeper.task!
        let finished = Recorder<Bool>()
        Task { await queued.finish(); finished.append(true) }
        for _ in 0..<100 { await Task.yield() }
        #expect(finished.values.isEmpty)
        await gate.open()
        await queued.finish()
        #expect(store.state == [.later, .b, .c])
    }

    @Test func aQueuedActionCancelledBeforeItIsReducedStartsItsEffectsCancelled() async {
        final class Canceller: Middleware {
            weak var store: Store<[ChainAction], ChainAction>?
            func beforeReduce(state: [ChainAction], action: ChainAction) {
                if action == .later { store?.send(.b).cancel() }   // queued, then cancelled
            }
        }
        let gate = Gate()
        let canceller = Canceller()
        let store = Store(initialState: [ChainAction](), reducer: Reduce<[ChainAction], ChainAction, Void> { state, action, _ in
            state.append(action)
            return action == .b ? .run { send in await gate.wait(); await send(.c) } : nil
        }, environment: (), middleware: [canceller])
        canceller.store = store
        store.send(.later)
        #expect(store.state == [.later, .b])      // the action is reduced; its effects are not delivered
        await gate.open()
        #expect(await waitUntil { store.runningEffectCount == 0 })
        #expect(store.state == [.later, .b])
    }
}
