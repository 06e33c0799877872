import Testing
@testable import Swidux

/// Seed 000, "UIKit Integration", ported to `observe` (issue 30 item 8): the view controller
/// subscribes once, renders from state in `render(_:)` only, and turns target-action
/// callbacks into intents. The view is a fake with the properties UIKit's would have.
@MainActor
struct Seed000UIKitCounterTests {
    /// What a `UIViewController` and its controls expose to `render` (main-actor, like UIKit).
    @MainActor
    final class FakeView {
        var title: String?
        var isSpinnerAnimating = false
        var errorText: String?
        var renders = 0
    }

    /// The seed's `CounterViewController`, with `store.observe` in place of `store.$state.sink`.
    @MainActor
    final class CounterViewController {
        let store: MVIStore<CounterState, CounterIntent, CounterAction>
        let view = FakeView()
        private var observation: ObservationToken?

        init(store: MVIStore<CounterState, CounterIntent, CounterAction>) { self.store = store }

        func viewDidLoad() {
            observation = store.observe { [weak self] store in self?.render(store.state) }
        }

        /// A target-action callback: becomes an intent.
        func incrementTapped() { store.send(.incrementTapped) }

        private func render(_ state: CounterState) {
            view.renders += 1
            view.title = "Count: \(state.count)"
            view.isSpinnerAnimating = state.isLoading
            view.errorText = state.error
        }
    }

    struct Service: CounterServicing {
        let gate: AsyncGate
        func increment() async throws -> Int { await gate.wait(); return 1 }
        func decrement() async throws -> Int { -1 }
        func reset() async throws -> Int { 0 }
    }

    /// Opens once; every waiter then proceeds.
    actor AsyncGate {
        private var open = false
        private var waiters: [CheckedContinuation<Void, Never>] = []
        func wait() async {
            if open { return }
            await withCheckedContinuation { waiters.append($0) }
        }
        func openGate() { open = true; waiters.forEach { $0.resume() }; waiters = [] }
    }

    @Test func theControllerRendersFromStateAndSendsIntents() async {
        let gate = AsyncGate()
        let service = Service(gate: gate)
        let store = MVIStore<CounterState, CounterIntent, CounterAction>(
            initial: CounterState(),
            reduceIntent: { state, intent in reduce(state: &state, intent: intent, service: service) },
            reduceAction: { state, action in reduce(state: &state, action: action) })
        let controller = CounterViewController(store: store)
        controller.viewDidLoad()
        #expect(controller.view.title == "Count: 0")
        #expect(controller.view.renders == 1)

        controller.incrementTapped()
        for _ in 0..<20 { await Task.yield() }
        #expect(controller.view.isSpinnerAnimating)
        #expect(controller.view.title == "Count: 0")

        await gate.openGate()
        for _ in 0..<200 where controller.view.isSpinnerAnimating { try? await Task.sleep(for: .milliseconds(5)) }
        #expect(!controller.view.isSpinnerAnimating)
        #expect(controller.view.title == "Count: 1")
        #expect(controller.view.errorText == nil)
    }
}
