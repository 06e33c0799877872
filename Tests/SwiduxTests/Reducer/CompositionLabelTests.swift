import Testing
@testable import Swidux

// One vocabulary for composition (issue 17 item 5): `state:` the child state's key path
// (`at:` beside the parent state in `reduce`), `extract:` parent action → child action,
// `embed:` child action → parent action, then `environment:`.

private struct Counter: SwiduxReducer {
    enum Action: Sendable { case increment, response(Int) }
    func reduce(state: inout Int, action: Action, environment: Int) -> Effect<Action>? {
        switch action {
        case .increment: return .run { .response(environment) }
        case .response(let n): state += n; return nil
        }
    }
}

private struct Twin: Equatable { var left = 0; var right = 0 }
private enum TwinAction: Sendable { case left(Counter.Action), right(Counter.Action) }
private struct TwinEnvironment { var left = 1; var right = 10 }

@MainActor
@Suite struct CompositionLabelTests {
    @Test func liftedExtractsAndEmbeds() async {
        let left = Counter().lifted(
            state: \Twin.left,
            extract: { (action: TwinAction) in if case .left(let a) = action { a } else { nil } },
            embed: TwinAction.left,
            environment: { (env: TwinEnvironment) in env.left }
        )
        let right = Counter().lifted(
            state: \Twin.right,
            extract: { (action: TwinAction) in if case .right(let a) = action { a } else { nil } },
            embed: TwinAction.right,
            environment: { (env: TwinEnvironment) in env.right }
        )
        let store = Store(initialState: Twin(), reducer: CombineReducers(left, right), environment: TwinEnvironment())
        await store.send(.left(.increment)).finish()
        await store.send(.right(.increment)).finish()
        #expect(store.state == Twin(left: 1, right: 10))
    }

    @Test func reduceAtTakesEmbedBeforeEnvironment() async {
        let reducer = Reduce<Twin, TwinAction, TwinEnvironment> { state, action, env in
            switch action {
            case .left(let a):
                return Counter().reduce(&state, at: \.left, action: a, embed: TwinAction.left, environment: env.left)
            case .right(let a):
                return Counter().reduce(&state, at: \.right, action: a, embed: TwinAction.right, environment: env.right)
            }
        }
        let store = Store(initialState: Twin(), reducer: reducer, environment: TwinEnvironment())
        await store.send(.right(.increment)).finish()
        #expect(store.state == Twin(left: 0, right: 10))
    }

    @Test func scopeEmbeds() {
        let reducer = Reduce<Twin, TwinAction, TwinEnvironment> { state, action, env in
            if case .left(.response(let n)) = action { state.left += n }
            return nil
        }
        let store = Store(initialState: Twin(), reducer: reducer, environment: TwinEnvironment())
        let left = store.scope(state: \.left, embed: TwinAction.left)
        left.send(.response(3))
        #expect(left.state == 3)
        #expect(store.left == 3)
    }

    @Test func theNewSpellingsKeepCancelIdsScopedByPath() async {
        // The same feature at two paths: each instance's cancellable effect is its own.
        struct Timer: SwiduxReducer {
            enum Action: Sendable { case start, done }
            func reduce(state: inout Int, action: Action, environment: Void) -> Effect<Action>? {
                switch action {
                case .start: return Effect.run { .done }.cancellable(id: "timer", cancelInFlight: true)
                case .done: state += 1; return nil
                }
            }
        }
        enum TwoAction: Sendable { case left(Timer.Action), right(Timer.Action) }
        let reducer = Reduce<Twin, TwoAction, Void> { state, action, _ in
            switch action {
            case .left(let a): Timer().reduce(&state, at: \.left, action: a, embed: TwoAction.left, environment: ())
            case .right(let a): Timer().reduce(&state, at: \.right, action: a, embed: TwoAction.right, environment: ())
            }
        }
        let store = Store(initialState: Twin(), reducer: reducer, environment: ())
        let l = store.send(.left(.start))
        let r = store.send(.right(.start))   // does not cancel the left one
        await l.finish()
        await r.finish()
        #expect(store.state == Twin(left: 1, right: 1))
    }

    // Deprecated itself, so calling the deprecated spellings keeps the build warning-free.
    @Test @available(*, deprecated, message: "exercises the pre-rename composition spellings")
    func theOldSpellingsStillWork() async {
        let left = Counter().lifted(
            state: \Twin.left,
            action: { (action: TwinAction) in if case .left(let a) = action { a } else { nil } },
            embed: TwinAction.left,
            environment: { (env: TwinEnvironment) in env.left }
        )
        let reducer = Reduce<Twin, TwinAction, TwinEnvironment> { state, action, env in
            switch action {
            case .left: return left.reduce(state: &state, action: action, environment: env)
            case .right(let a):
                return Counter().reduce(&state, at: \.right, action: a, environment: env.right, embed: TwinAction.right)
            }
        }
        let store = Store(initialState: Twin(), reducer: reducer, environment: TwinEnvironment())
        await store.send(.left(.increment)).finish()
        await store.send(.right(.increment)).finish()
        #expect(store.state == Twin(left: 1, right: 10))
        let right = store.scope(state: \.right, action: TwinAction.right)
        right.send(.response(5))
        #expect(store.right == 15)
    }
}
