import Foundation
#if canImport(Network)
import Network
#endif

/// Ends a ``SyncClient``'s retry wait as soon as the network comes back (an `NWPathMonitor`
/// path turning `.satisfied`), instead of after up to 30 s of backoff, or when woken: the
/// server answered a request again after one could not reach it (``answered()``), or a retry
/// was asked for (``wakeAll()``). Without the Network framework (Linux) only the latter two
/// end a wait early.
final class NetworkWatch: @unchecked Sendable {
    private let lock = NSLock()
    private var waiters: [UInt64: CheckedContinuation<Void, Never>] = [:]
    private var nextWaiter: UInt64 = 0
    /// How many times ``wakeAll()`` ran: a wait given the count read before the attempt that
    /// failed does not begin when a wake-up came in between (it would otherwise be lost, and
    /// the whole backoff waited out).
    private var wakes: UInt64 = 0
    /// A request could not reach the server, and none got an answer since.
    private var serverLost = false
    #if canImport(Network)
    private var monitor: NWPathMonitor?
    private var satisfied = true
    #endif

    func start() {
        #if canImport(Network)
        let monitor = NWPathMonitor()
        monitor.pathUpdateHandler = { [weak self] path in self?.pathChanged(satisfied: path.status == .satisfied) }
        lock.withLock { self.monitor = monitor }
        monitor.start(queue: DispatchQueue(label: "swidux.sync.network"))
        #endif
    }

    func stop() {
        #if canImport(Network)
        let monitor = lock.withLock { () -> NWPathMonitor? in
            defer { self.monitor = nil }
            return self.monitor
        }
        monitor?.cancel()
        #endif
        wakeAll()
    }

    #if canImport(Network)
    private func pathChanged(satisfied now: Bool) {
        let returned = lock.withLock { () -> Bool in
            defer { satisfied = now }
            return now && !satisfied
        }
        if returned { wakeAll() }
    }
    #endif

    /// The wake-ups so far, read before an attempt and given to
    /// ``waitForReturn(orFor:unlessWokenSince:)`` after it failed.
    var wakeMark: UInt64 {
        lock.withLock { wakes }
    }

    /// A request got no answer from the server (refused, timed out, cut): the next answer
    /// ends every retry wait.
    func unreachable() {
        lock.withLock { serverLost = true }
    }

    /// A request got an answer from the server (any status): after one could not reach it,
    /// every retry wait ends now, so that a change waiting for the server goes at once.
    func answered() {
        let returned = lock.withLock { () -> Bool in
            defer { serverLost = false }
            return serverLost
        }
        if returned { wakeAll() }
    }

    /// Waits `delay`, or less if the network comes back or ``wakeAll()`` is called
    /// meanwhile (or was called since `mark` was read), or until cancelled.
    func waitForReturn(orFor delay: Duration, unlessWokenSince mark: UInt64? = nil) async {
        let id = lock.withLock { () -> UInt64 in
            nextWaiter &+= 1
            return nextWaiter
        }
        await withTaskGroup(of: Void.self) { group in
            group.addTask {
                await withTaskCancellationHandler {
                    await withCheckedContinuation { continuation in
                        let now = self.lock.withLock { () -> Bool in
                            if Task.isCancelled { return true }
                            if let mark, mark != self.wakes { return true }
                            self.waiters[id] = continuation
                            return false
                        }
                        if now { continuation.resume() }
                    }
                } onCancel: {
                    self.resume(id)
                }
            }
            group.addTask {
                try? await Task.sleep(for: delay)
                self.resume(id)
            }
            await group.next()
            group.cancelAll()
        }
    }

    private func resume(_ id: UInt64) {
        let waiter = lock.withLock { waiters.removeValue(forKey: id) }
        waiter?.resume()
    }

    /// Ends every wait now.
    func wakeAll() {
        let woken = lock.withLock { () -> [CheckedContinuation<Void, Never>] in
            wakes &+= 1
            defer { waiters.removeAll() }
            return Array(waiters.values)
        }
        for waiter in woken { waiter.resume() }
    }
}
