import Foundation
import Swidux
#if canImport(Network)
import Network
#endif

/// Ends a ``SyncClient``'s retry wait as soon as the network comes back (an `NWPathMonitor`
/// path turning `.satisfied`), instead of after up to 30 s of backoff, or when woken: the
/// server answered a request again after one could not reach it (``answered()``), or a retry
/// was asked for (``wakeAll()``). Without the Network framework (Linux) only the latter two
/// end a wait early.
final class NetworkWatch: Sendable {
    /// Counts the wake-ups (``wakeAll()``): a wait given the count read before the attempt
    /// that failed does not begin when a wake-up came in between (it would otherwise be lost,
    /// and the whole backoff waited out).
    private let wakeSignal = WakeSignal()

    private struct State {
        /// A request could not reach the server, and none got an answer since.
        var serverLost = false
        #if canImport(Network)
        var monitor: NWPathMonitor?
        var satisfied = true
        #endif
    }

    private let state = LockedValue(State())

    func start() {
        #if canImport(Network)
        let monitor = NWPathMonitor()
        monitor.pathUpdateHandler = { [weak self] path in self?.pathChanged(satisfied: path.status == .satisfied) }
        state.withLock { $0.monitor = monitor }
        monitor.start(queue: DispatchQueue(label: "swidux.sync.network"))
        #endif
    }

    func stop() {
        #if canImport(Network)
        let monitor = state.withLock { state -> NWPathMonitor? in
            defer { state.monitor = nil }
            return state.monitor
        }
        monitor?.cancel()
        #endif
        wakeAll()
    }

    #if canImport(Network)
    private func pathChanged(satisfied now: Bool) {
        let returned = state.withLock { state -> Bool in
            defer { state.satisfied = now }
            return now && !state.satisfied
        }
        if returned { wakeAll() }
    }
    #endif

    /// The wake-ups so far, read before an attempt and given to
    /// ``waitForReturn(orFor:unlessWokenSince:)`` after it failed.
    var wakeMark: UInt64 { wakeSignal.generation }

    /// A request got no answer from the server (refused, timed out, cut): the next answer
    /// ends every retry wait.
    func unreachable() {
        state.withLock { $0.serverLost = true }
    }

    /// A request got an answer from the server (any status): after one could not reach it,
    /// every retry wait ends now, so that a change waiting for the server goes at once.
    func answered() {
        let returned = state.withLock { state -> Bool in
            defer { state.serverLost = false }
            return state.serverLost
        }
        if returned { wakeAll() }
    }

    /// Waits `delay`, or less if the network comes back or ``wakeAll()`` is called
    /// meanwhile (or was called since `mark` was read), or until cancelled.
    func waitForReturn(orFor delay: Duration, unlessWokenSince mark: UInt64? = nil) async {
        await wakeSignal.wait(after: mark, timeout: delay)
    }

    /// Ends every wait now.
    func wakeAll() { wakeSignal.wake() }
}
