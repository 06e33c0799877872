import Testing
@testable import Swidux

/// A reusable feature composed twice (`left`, `right`), each with the same cancel id.
struct TimerFeature: SwiduxReducer {
    enum ID: Hashable, Sendable { case timer, shared }
    enum Action: Equatable, Sendable { case start, stop, startShared }
    struct Environment: Sendable { let name: String; let cancelled: Recorder<String> }

    func reduce(state: inout Int, action: Action, environment: Environment) -> Effect<Action>? {
        switch action {
        case .start:
            state += 1
            return sleeper(environment).cancellable(id: ID.timer)
        case .startShared:
            state += 1
            return sleeper(environment).cancellable(id: GlobalCancelID(ID.shared))
        case .stop:
            return .cancel(id: ID.timer)
        }
    }

    private func sleeper(_ environment: Environment) -> Effect<Action> {
        .run { _ in
            do { try await Task.sleep(for: .seconds(60)) } catch { environment.cancelled.append(environment.name) }
        }
    }
}

struct Pair: Equatable { var left = 0; var right = 0 }
enum PairAction: Equatable, Sendable {
    case left(TimerFeature.Action), right(TimerFeature.Action)
    case stopLeftFromParent, stopShared, stopRootTimer
}

@MainActor func pairStore(cancelled: Recorder<String>) -> Store<Pair, PairAction> {
    let left = TimerFeature().lifted(
        state: \Pair.left,
        extract: { (action: PairAction) in if case .left(let a) = action { a } else { nil } },
        embed: PairAction.left,
        environment: { (recorder: Recorder<String>) in .init(name: "left", cancelled: recorder) })
    let right = TimerFeature().lifted(
        state: \Pair.right,
        extract: { (action: PairAction) in if case .right(let a) = action { a } else { nil } },
        embed: PairAction.right,
        environment: { (recorder: Recorder<String>) in .init(name: "right", cancelled: recorder) })
    let parent = Reduce<Pair, PairAction, Recorder<String>> { _, action, _ in
        switch action {
        case .stopLeftFromParent: return Effect.cancel(id: TimerFeature.ID.timer).scoped(\Pair.left)
        case .stopShared: return .cancel(id: GlobalCancelID(TimerFeature.ID.shared))
        case .stopRootTimer: return .cancel(id: TimerFeature.ID.timer)   // root namespace: none started there
        default: return nil
        }
    }
    return Store(initialState: Pair(), reducer: CombineReducers(left, right, parent), environment: cancelled)
}

@MainActor
@Suite("Cancel ids are namespaced by scope", .timeLimit(.minutes(1)))
struct CancelScopeTests {
    @Test func stoppingOneInstanceLeavesTheOtherRunning() async {
        let cancelled = Recorder<String>()
        let store = pairStore(cancelled: cancelled)
        let left = store.scope(state: \.left, embed: PairAction.left)
        let right = store.scope(state: \.right, embed: PairAction.right)
        left.send(.start)
        right.send(.start)
        right.send(.stop)
        #expect(await waitUntil { cancelled.values == ["right"] })
        for _ in 0..<50 { await Task.yield() }
        #expect(cancelled.values == ["right"])
        #expect(store.runningEffectCount >= 1)
        store.send(.stopRootTimer)        // an id of the root scope does not reach the children
        for _ in 0..<50 { await Task.yield() }
        #expect(cancelled.values == ["right"])
        left.send(.stop)
        #expect(await waitUntil { cancelled.values == ["right", "left"] })
    }

    @Test func theRootStoreSendingChildActionsUsesTheSameNamespace() async {
        let cancelled = Recorder<String>()
        let store = pairStore(cancelled: cancelled)
        store.send(.left(.start))
        let right = store.scope(state: \.right, embed: PairAction.right)
        right.send(.start)
        store.send(.left(.stop))
        #expect(await waitUntil { cancelled.values == ["left"] })
        right.send(.stop)
        #expect(await waitUntil { cancelled.values == ["left", "right"] })
    }

    @Test func aParentCancelsOneChildsIdWithScoped() async {
        let cancelled = Recorder<String>()
        let store = pairStore(cancelled: cancelled)
        store.send(.left(.start))
        store.send(.right(.start))
        store.send(.stopLeftFromParent)
        #expect(await waitUntil { cancelled.values == ["left"] })
        for _ in 0..<50 { await Task.yield() }
        #expect(cancelled.values == ["left"])
        store.send(.right(.stop))
        #expect(await waitUntil { store.runningEffectCount == 0 })
    }

    @Test func aGlobalIdIsTheSameInEveryScope() async {
        let cancelled = Recorder<String>()
        let store = pairStore(cancelled: cancelled)
        store.send(.left(.startShared))
        store.send(.right(.startShared))
        store.send(.stopShared)
        #expect(await waitUntil { cancelled.values.sorted() == ["left", "right"] })
    }
}
