import Foundation
import Synchronization

/// What the load saw, gathered from every poller and pusher (thread-safe): when each pushed
/// row was sent and answered, when each poller received each row, and every error.
///
/// ```swift
/// let recorder = LoadRecorder()
/// recorder.pushed(version: 7, space: 2, sent: t0, answered: t1)
/// recorder.received(version: 7, at: t2)
/// ```
final class LoadRecorder: Sendable {
    /// A push's row: its space, when its request was sent and when its answer arrived (ns).
    struct Push { var space: Int; var sent: UInt64; var answered: UInt64 }

    private struct State {
        var pushes: [Int64: Push] = [:]
        var deliveries: [(version: Int64, at: UInt64)] = []
        var errorCount = 0
        var errorSamples: [String] = []
        var polls = 0
    }
    private let state = Mutex(State())

    /// A monotonic clock in nanoseconds.
    static func now() -> UInt64 { DispatchTime.now().uptimeNanoseconds }

    func pushed(version: Int64, space: Int, sent: UInt64, answered: UInt64) {
        state.withLock { $0.pushes[version] = Push(space: space, sent: sent, answered: answered) }
    }

    func received(versions: [Int64], at time: UInt64) {
        state.withLock { state in
            state.polls += 1
            for version in versions { state.deliveries.append((version, time)) }
        }
    }

    func error(_ message: String) {
        state.withLock { state in
            state.errorCount += 1
            if state.errorSamples.count < 10 { state.errorSamples.append(message) }
        }
    }

    /// Everything recorded so far.
    func snapshot() -> (pushes: [Int64: Push], deliveries: [(version: Int64, at: UInt64)], errors: Int, samples: [String], polls: Int) {
        state.withLock { ($0.pushes, $0.deliveries, $0.errorCount, $0.errorSamples, $0.polls) }
    }
}
