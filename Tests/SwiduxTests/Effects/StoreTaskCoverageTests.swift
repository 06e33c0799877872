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

    @Test func anActionSentLaterByAnEffectGetsItsOwnTask() async {
        // `.c` arrives from an effect after `send(.a)` returned: the task of `.a` covers the
        // effect that sends it, not what `.c` starts in turn.
        let gate = Gate()
        let store = Store(initialState: [ChainAction](), reducer: Reduce<[ChainAction], ChainAction, Void> { state, action, _ in
            state.append(action)
            switch action {
            case .a: return .run { send in await send(.c) }
            case .c: return .run { send in await gate.wait(); await send(.later) }
            default: return nil
            }
        }, environment: ())
        await store.send(.a).finish()
        #expect(store.state == [.a, .c])
        await gate.open()
        #expect(await waitUntil { store.state == [.a, .c, .later] })
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
        // not wait for what that action started.
        let gate = Gate()
        let store = makeStore(gate: gate)
        let task = store.send(.d)
        #expect(await waitUntil { store.state == [.d, .b, .later] })
        await task.finish()                       // the concatenation is done
        #expect(store.runningEffectCount == 1)    // `.b`'s effect has its own task
        await gate.open()
        #expect(await waitUntil { store.state == [.d, .b, .later, .c] })
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
