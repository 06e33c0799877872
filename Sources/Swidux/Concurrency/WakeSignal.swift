/// A wake-up that tasks wait for, with a timeout: the one waiter of the package (a database
/// file's commits, a sync client's retry backoff).
///
/// Every ``wake()`` moves a generation counter and resumes every waiter. A waiter passes the
/// generation it read before its own work, so a wake-up between that read and the wait ends
/// the wait at once instead of being lost.
///
/// ```swift
/// let signal = WakeSignal()
/// let seen = signal.generation
/// // … look for work, find none …
/// await signal.wait(after: seen, timeout: .seconds(30))   // returns at the next wake()
/// ```
///
/// Invariants, all under one lock:
/// - each registered continuation is resumed exactly once, by whoever removes it from the
///   table (a wake-up, the timeout, cancellation), never while the lock is held;
/// - a wait whose generation already moved, whose timeout already fired or whose task is
///   already cancelled does not suspend;
/// - no thread blocks and nothing polls: a wait is a continuation and one sleeping task for
///   its timeout, which is cancelled when the wait ends.
package final class WakeSignal: Sendable {
    /// Why a wait ended.
    package enum Ending: Sendable, Equatable {
        case woken, timedOut, cancelled
    }

    private enum Entry {
        /// Registered, the continuation not yet stored.
        case pending
        /// Ended (timeout, cancellation) before its continuation was stored: the waiter,
        /// finding this, does not suspend.
        case ended(Ending)
        case waiting(CheckedContinuation<Ending, Never>)
    }

    private struct State {
        var generation: UInt64 = 0
        var nextID: UInt64 = 0
        var entries: [UInt64: Entry] = [:]
    }

    private let state = LockedValue(State())

    package init() {}

    /// How many wake-ups so far: read it before looking for work, pass it to
    /// ``wait(after:timeout:)``.
    package var generation: UInt64 { state.withLock { $0.generation } }

    /// How many waits have begun and not ended.
    package var waiterCount: Int { state.withLock { $0.entries.count } }

    /// Ends every wait now, and every later wait given an older generation.
    package func wake() {
        let woken = state.withLock { state -> [CheckedContinuation<Ending, Never>] in
            state.generation &+= 1
            // A pending entry removed here finds itself gone, and the generation moved.
            defer { state.entries.removeAll(keepingCapacity: true) }
            return state.entries.values.compactMap {
                if case .waiting(let continuation) = $0 { continuation } else { nil }
            }
        }
        for continuation in woken { continuation.resume(returning: .woken) }
    }

    /// Returns at the first wake-up after generation `seen` (at once if one already came),
    /// after `timeout`, or when the task is cancelled — whichever comes first. With `seen`
    /// nil, waits for the next wake-up from now.
    @discardableResult
    package func wait(after seen: UInt64? = nil, timeout: Duration) async -> Ending {
        let registered = state.withLock { state -> (id: UInt64, seen: UInt64)? in
            if let seen, seen != state.generation { return nil }
            state.nextID &+= 1
            state.entries[state.nextID] = .pending
            return (state.nextID, state.generation)
        }
        guard let registered else { return .woken }
        let id = registered.id, seen = registered.seen
        let timer = Task { [self] in
            // Cancelled when the wait ends first (ids are never reused: a late timer could
            // not end another wait anyway).
            do { try await Task.sleep(for: timeout) } catch { return }
            end(id, .timedOut)
        }
        defer { timer.cancel() }
        return await withTaskCancellationHandler {
            await withCheckedContinuation { continuation in
                let now = state.withLock { state -> Ending? in
                    switch state.entries[id] {
                    case nil: return .woken
                    case .ended(let ending):
                        state.entries[id] = nil
                        return ending
                    case .waiting: preconditionFailure("a wait stores its continuation once")
                    case .pending:
                        if state.generation != seen {
                            state.entries[id] = nil
                            return .woken
                        }
                        if Task.isCancelled {
                            state.entries[id] = nil
                            return .cancelled
                        }
                        state.entries[id] = .waiting(continuation)
                        return nil
                    }
                }
                if let now { continuation.resume(returning: now) }
            }
        } onCancel: {
            end(id, .cancelled)
        }
    }

    /// Ends one wait (its timeout or its task's cancellation): resumes it if it suspended,
    /// otherwise marks it so that it does not suspend.
    private func end(_ id: UInt64, _ ending: Ending) {
        let continuation = state.withLock { state -> CheckedContinuation<Ending, Never>? in
            switch state.entries[id] {
            case .waiting(let continuation):
                state.entries[id] = nil
                return continuation
            case .pending:
                state.entries[id] = .ended(ending)
                return nil
            case .ended, nil:
                return nil
            }
        }
        continuation?.resume(returning: ending)
    }
}
