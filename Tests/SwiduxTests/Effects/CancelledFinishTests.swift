import Foundation
import Testing
@testable import Swidux

/// A task awaiting `store.send(.a).finish()` that is cancelled must leave no action of the
/// effect delivered afterwards — also when the cancellation came between the send and the
/// moment `finish()` started watching the task, while the effect was ready to deliver.
/// (`finish()` used to hop to the global executor first: while that hop waited for a thread,
/// the main actor ran the effect's `send(.c)`, and the cancellation reached the effect only
/// after it — as under load.)
@MainActor
@Suite("A cancelled finish()", .serialized, .timeLimit(.minutes(1)))
struct CancelledFinishTests {
    enum Action: Equatable, Sendable { case a, c }

    /// A flag and a counter shared with other threads.
    final class Shared: @unchecked Sendable {
        private let lock = LockedValue(())
        private var flag = false
        private var count = 0
        var isSet: Bool { lock.withLock { _ in flag } }
        func set() { lock.withLock { _ in flag = true } }
        var started: Int { lock.withLock { _ in count } }
        func start() { lock.withLock { _ in count += 1 } }
    }

    /// Blocks the calling thread until `flag` is set, and 20 ms more (the effect's hop to the
    /// main actor is queued by then).
    nonisolated static func block(until flag: Shared) {
        while !flag.isSet { usleep(1_000) }
        usleep(20_000)
    }

    /// Occupies every thread of the global executor for `milliseconds` (at most), so that work
    /// sent there waits meanwhile, as on a loaded machine; returns once they are all busy (or
    /// after a second, if some thread stays taken by other work).
    nonisolated static func occupyTheGlobalExecutor(milliseconds: Int) {
        let threads = ProcessInfo.processInfo.activeProcessorCount
        let busy = Shared()
        for _ in 0..<threads {
            Task.detached {
                busy.start()
                usleep(UInt32(milliseconds) * 1_000)
            }
        }
        let deadline = Date().addingTimeInterval(1)
        while busy.started < threads, Date() < deadline { usleep(500) }
    }

    @Test func anEffectReadyToDeliverIsStoppedByAFinishCancelledBeforeItStarted() async {
        let sending = Shared()
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
            // Anything this task would now run off the main actor waits for a thread.
            Self.occupyTheGlobalExecutor(milliseconds: 300)
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
