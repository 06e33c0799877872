import Foundation
import Testing
@testable import Swidux

/// A task awaiting `store.send(.a).finish()` that is cancelled must leave no action of the
/// effect delivered afterwards — also when the cancellation came between the send and the
/// moment `finish()` started watching the task, while the effect was ready to deliver.
/// (`finish()` used to hop to the global executor first: in that hop the main actor ran the
/// effect's `send(.c)`, and the cancellation reached the effect only after it.)
@MainActor
@Suite("A cancelled finish()", .timeLimit(.minutes(1)))
struct CancelledFinishTests {
    enum Action: Equatable, Sendable { case a, c }

    /// Set by the effect just before it sends `.c`.
    final class Flag: @unchecked Sendable {
        private let lock = NSLock()
        private var value = false
        var isSet: Bool { lock.withLock { value } }
        func set() { lock.withLock { value = true } }
    }

    /// Blocks the calling thread until `flag` is set, and 20 ms more (the effect's hop to the
    /// main actor is queued by then).
    nonisolated static func block(until flag: Flag) {
        while !flag.isSet { usleep(1_000) }
        usleep(20_000)
    }

    @Test func anEffectReadyToDeliverIsStoppedByAFinishCancelledBeforeItStarted() async {
        let sending = Flag()
        let store = Store(initialState: [Action](), reducer: Reduce<[Action], Action, Void> { state, action, _ in
            state.append(action)
            guard action == .a else { return nil }
            return .run { send in
                sending.set()
                await send(.c)
            }
        }, environment: ())
        let waiter = Task { @MainActor in
            let task = store.send(.a)
            // Hold the main actor until the effect's `send(.c)` waits for it: the effect is
            // ready to deliver, and the main actor runs it as soon as this task lets it go.
            Self.block(until: sending)
            // Cancelled now, after the send and before `finish()`.
            withUnsafeCurrentTask { $0?.cancel() }
            await task.finish()
        }
        await waiter.value
        #expect(store.state == [.a])
        #expect(await waitUntil { store.runningEffectCount == 0 })
        #expect(store.state == [.a])
    }
}
