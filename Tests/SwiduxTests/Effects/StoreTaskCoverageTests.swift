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
