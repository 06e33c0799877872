import Foundation
import Swidux

/// A manual test clock that counts the sleeps registered on it, so a test advances time only
/// after the sleeper it means to wake is waiting (no race with task start-up).
///
/// It is its own clock rather than a wrapper of swift-clocks' `TestClock`: a wrapper can only
/// count a sleep before handing it to the wrapped clock, and a test that saw the count and
/// advanced in between moved time past a sleeper not yet registered, which then waited for
/// an advance that never came. Here the count and the registration happen under one lock.
///
/// Like `TestClock`, a sleep whose deadline is the current instant waits for the next
/// advance; one whose deadline has passed returns at once.
final class SpyClock: Clock, @unchecked Sendable {
    typealias Duration = Swift.Duration

    struct Instant: InstantProtocol {
        let offset: Duration
        func advanced(by duration: Duration) -> Instant { Instant(offset: offset + duration) }
        func duration(to other: Instant) -> Duration { other.offset - offset }
        static func < (lhs: Instant, rhs: Instant) -> Bool { lhs.offset < rhs.offset }
    }

    private struct Sleeper {
        let deadline: Instant
        let continuation: CheckedContinuation<Void, any Error>
    }

    private struct State {
        var now = Instant(offset: .zero)
        var sleeps = 0
        var nextID = 0
        var sleepers: [Int: Sleeper] = [:]
        /// Sleeps cancelled before they registered: they must not register afterwards.
        var cancelled: Set<Int> = []
    }

    private let state = LockedValue(State())

    init() {}

    var now: Instant { state.withLock { $0.now } }
    var minimumResolution: Duration { .zero }

    /// Sleeps started so far: registered, passed, or cancelled before they could register
    /// (a timer replaced at once still counts, as tests count the timers they scheduled).
    var sleepCount: Int { state.withLock { $0.sleeps } }

    func sleep(until deadline: Instant, tolerance: Duration?) async throws {
        if Task.isCancelled {
            state.withLock { $0.sleeps += 1 }
            throw CancellationError()
        }
        let id = state.withLock { state in
            state.nextID += 1
            return state.nextID
        }
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                enum Outcome { case waits, passed, cancelled }
                let outcome: Outcome = state.withLock { state in
                    state.sleeps += 1
                    if state.cancelled.remove(id) != nil { return .cancelled }
                    if deadline < state.now { return .passed }
                    state.sleepers[id] = Sleeper(deadline: deadline, continuation: continuation)
                    return .waits
                }
                switch outcome {
                case .waits: break
                case .passed: continuation.resume()
                case .cancelled: continuation.resume(throwing: CancellationError())
                }
            }
        } onCancel: {
            let sleeper = state.withLock { state in
                if let sleeper = state.sleepers.removeValue(forKey: id) { return Optional(sleeper) }
                state.cancelled.insert(id)
                return nil
            }
            sleeper?.continuation.resume(throwing: CancellationError())
        }
    }

    /// Waits until `count` sleeps registered, then advances the clock.
    @MainActor
    func advance(by duration: Duration, afterSleeps count: Int) async {
        _ = await waitUntil { self.sleepCount >= count }
        await advance(by: duration)
    }

    /// Moves time forward by `duration`, waking the sleepers it passes in deadline order and
    /// letting each woken task run (and perhaps sleep again) before the next wakes.
    func advance(by duration: Duration) async {
        let target = state.withLock { $0.now.advanced(by: duration) }
        while true {
            await Self.yieldToOthers()
            let woken: Sleeper? = state.withLock { state in
                guard let next = state.sleepers.min(by: { $0.value.deadline < $1.value.deadline }),
                      next.value.deadline <= target else {
                    if state.now < target { state.now = target }
                    return nil
                }
                state.sleepers[next.key] = nil
                if state.now < next.value.deadline { state.now = next.value.deadline }
                return next.value
            }
            guard let woken else { break }
            woken.continuation.resume()
        }
        await Self.yieldToOthers()
    }

    /// Gives other tasks, including ones on other executors, a chance to run.
    private static func yieldToOthers() async {
        for _ in 0..<20 {
            await Task.detached(priority: .background) { await Task.yield() }.value
        }
    }
}
