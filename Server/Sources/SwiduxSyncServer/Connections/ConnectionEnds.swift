import Synchronization

/// The connections whose client side is still open. A connection ends when the client closes
/// it or only its sending side (no request can follow then), or when the server closes it:
/// a long poll of a client that went away answers at once and gives its user's request slot
/// back, instead of holding it until the end of its wait.
///
/// ```swift
/// let ends = ConnectionEnds()
/// ends.opened(connection)                   // ConnectionEndHandler, as the connection starts
/// await ends.waitForEnd(of: connection)     // a long poll, beside its wait for a change
/// ```
final class ConnectionEnds: Sendable {
    private struct State {
        /// The open connections and who waits for each one's end.
        var open: [ObjectIdentifier: [Int: CheckedContinuation<Void, Never>]] = [:]
        var nextWaiter = 0
    }
    private let state = Mutex(State())

    /// A connection started.
    func opened(_ connection: ObjectIdentifier) {
        state.withLock { $0.open[connection] = [:] }
    }

    /// A connection ended: its waiters return. Once only; later calls do nothing.
    func ended(_ connection: ObjectIdentifier) {
        let waiters = state.withLock { $0.open.removeValue(forKey: connection) } ?? [:]
        for continuation in waiters.values { continuation.resume() }
    }

    /// Whether `connection` ended (or was never opened here).
    func hasEnded(_ connection: ObjectIdentifier) -> Bool {
        state.withLock { $0.open[connection] == nil }
    }

    /// Returns when `connection` ends (at once if it has), or when the task is cancelled.
    func waitForEnd(of connection: ObjectIdentifier) async {
        let id = state.withLock { state in
            defer { state.nextWaiter += 1 }
            return state.nextWaiter
        }
        await withTaskCancellationHandler {
            await withCheckedContinuation { continuation in
                let waiting = state.withLock { state in
                    guard state.open[connection] != nil, !Task.isCancelled else { return false }
                    state.open[connection]?[id] = continuation
                    return true
                }
                if !waiting { continuation.resume() }
            }
        } onCancel: {
            let continuation = state.withLock { $0.open[connection]?.removeValue(forKey: id) }
            continuation?.resume()
        }
    }
}
