import Foundation

/// What the load saw, gathered from every poller and pusher (thread-safe): when each pushed
/// row was sent and answered, when each poller received each row, and every error.
///
/// ```swift
/// let recorder = LoadRecorder()
/// recorder.pushed(version: 7, space: 2, sent: t0, answered: t1)
/// recorder.received(version: 7, at: t2)
/// ```
final class LoadRecorder: @unchecked Sendable {
    /// A push's row: its space, when its request was sent and when its answer arrived (ns).
    struct Push { var space: Int; var sent: UInt64; var answered: UInt64 }

    private let lock = NSLock()
    private var pushes: [Int64: Push] = [:]
    private var deliveries: [(version: Int64, at: UInt64)] = []
    private var errorCount = 0
    private var errorSamples: [String] = []
    private var polls = 0

    /// A monotonic clock in nanoseconds.
    static func now() -> UInt64 { DispatchTime.now().uptimeNanoseconds }

    func pushed(version: Int64, space: Int, sent: UInt64, answered: UInt64) {
        lock.withLock { pushes[version] = Push(space: space, sent: sent, answered: answered) }
    }

    func received(versions: [Int64], at time: UInt64) {
        lock.withLock {
            polls += 1
            for version in versions { deliveries.append((version, time)) }
        }
    }

    func error(_ message: String) {
        lock.withLock {
            errorCount += 1
            if errorSamples.count < 10 { errorSamples.append(message) }
        }
    }

    /// Everything recorded so far.
    func snapshot() -> (pushes: [Int64: Push], deliveries: [(version: Int64, at: UInt64)], errors: Int, samples: [String], polls: Int) {
        lock.withLock { (pushes, deliveries, errorCount, errorSamples, polls) }
    }
}
