import Foundation
import Swidux

/// A lock for async code: one holder at a time, waiters served first come, first served,
/// and a waiter whose task is cancelled leaves the queue at once.
///
/// ```swift
/// let exclusive = AsyncMutex()
/// let rows = try await exclusive.withLock { try engine.cursor() }
/// ```
///
/// Invariants (``checkInvariants()`` asserts them), all kept under `state`:
/// 1. At most one holder: `held` is true from the moment a task gets the lock until its
///    ``unlock()``.
/// 2. Nobody waits on a free lock: `waiters` is empty whenever `held` is false (a waiter
///    left behind on a free lock would be a lost wake-up).
/// 3. ``unlock()`` hands the lock straight to the oldest waiter (`held` stays true), so a
///    newcomer never overtakes a waiter: holders come in the order their `lock()` queued.
/// 4. Every waiter is resumed exactly once, by whoever removes it from `waiters` under
///    `state`: ``unlock()`` (it now holds the lock) or its task's cancellation (it throws
///    `CancellationError` and never held the lock). Cancelling a waiter never passes the
///    lock on, because it did not have it.
///
/// A task already cancelled when it calls `lock()` throws at once, even on a free lock:
/// the work the lock protects is then not begun.
package final class AsyncMutex: Sendable {
    private struct State {
        var held = false
        /// Oldest first. An array: few tasks ever wait at once, and removal on cancellation
        /// is a scan.
        var waiters: [(id: UInt64, continuation: CheckedContinuation<Void, any Error>)] = []
        var nextID: UInt64 = 0
    }

    private let state = LockedValue(State())

    package init() {}

    /// Waits until this task holds the lock.
    ///
    /// - Throws: `CancellationError` when the task is cancelled before it gets the lock
    ///   (it then does not hold it).
    package func lock() async throws {
        let id = state.withLock { state -> UInt64 in
            state.nextID &+= 1
            return state.nextID
        }
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                enum Outcome { case cancelled, acquired, queued }
                let outcome = state.withLock { state -> Outcome in
                    // The cancellation flag is set before the handler below runs: a handler
                    // that ran before this point found no waiter to remove, and this check sees it.
                    if Task.isCancelled { return .cancelled }
                    if !state.held {
                        state.held = true
                        return .acquired
                    }
                    state.waiters.append((id, continuation))
                    return .queued
                }
                switch outcome {
                case .cancelled: continuation.resume(throwing: CancellationError())
                case .acquired: continuation.resume()
                case .queued: break
                }
            }
        } onCancel: {
            let removed = state.withLock { state -> CheckedContinuation<Void, any Error>? in
                guard let index = state.waiters.firstIndex(where: { $0.id == id }) else { return nil }
                return state.waiters.remove(at: index).continuation
            }
            // Not found: not queued yet (the check above throws), or already handed the lock
            // (the task holds it and must unlock it as usual).
            removed?.resume(throwing: CancellationError())
        }
    }

    /// Releases the lock: the oldest waiter gets it, or it becomes free.
    package func unlock() {
        let next = state.withLock { state -> CheckedContinuation<Void, any Error>? in
            precondition(state.held, "AsyncMutex unlocked while not held")
            if state.waiters.isEmpty {
                state.held = false
                return nil
            }
            return state.waiters.removeFirst().continuation
        }
        next?.resume()
    }

    /// Runs `body` holding the lock, and releases it however `body` ends (returning,
    /// throwing, or its task cancelled meanwhile). `body` runs on the caller's actor.
    ///
    /// ```swift
    /// let cursor = try await exclusive.withLock { try engine.cursor() }
    /// ```
    ///
    /// - Throws: `CancellationError` when the task is cancelled while waiting (then `body`
    ///   does not run), or what `body` throws.
    package func withLock<T>(isolation: isolated (any Actor)? = #isolation,
                             _ body: () async throws -> T) async throws -> T {
        try await lock()
        defer { unlock() }
        return try await body()
    }

    /// How many tasks wait (not counting the holder); for tests that need a queue of a
    /// known order.
    package var waiting: Int {
        state.withLock { $0.waiters.count }
    }

    /// Asserts the invariants listed on the type.
    package func checkInvariants() {
        state.withLock { state in
            precondition(state.held || state.waiters.isEmpty, "AsyncMutex: waiters on a free lock (a lost wake-up)")
            precondition(Set(state.waiters.map(\.id)).count == state.waiters.count, "AsyncMutex: a waiter queued twice")
        }
    }
}
