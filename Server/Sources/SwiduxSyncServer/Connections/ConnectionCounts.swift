import Synchronization

/// The connections of each client address that have not yet made an authenticated request,
/// up to a limit. A connection past the limit is admitted on probation
/// (``ConnectionLimitHandler``): its first request must carry a token and authenticate, else
/// it is answered 429 and closed. A connection leaves its address's count for good once one
/// of its requests authenticates: from then on it counts toward its user's and space's
/// in-flight requests (``RequestLimits``), so that many users behind one carrier's NAT are not
/// cut off by the address limit.
final class ConnectionCounts: Sendable {
    /// How a connection was admitted.
    enum Admission: Equatable {
        /// Counted toward its address's limit.
        case counted
        /// Past its address's limit: its first request must authenticate.
        case probation
    }

    private struct Entry {
        var address: String
        var admission: Admission
    }

    private struct State {
        /// Unauthenticated connections counted per address.
        var unauthenticated: [String: Int] = [:]
        /// The open connections that have not yet authenticated, by channel.
        var pending: [ObjectIdentifier: Entry] = [:]
    }

    /// The most unauthenticated connections one address may have counted.
    let limit: Int
    private let state = Mutex(State())

    init(limit: Int) { self.limit = limit }

    /// Admits a new connection from `address`: counted while its address has fewer than
    /// `limit`, else on probation.
    func open(_ connection: ObjectIdentifier, address: String) -> Admission {
        let limit = self.limit
        return state.withLock { state in
            let count = state.unauthenticated[address, default: 0]
            let admission: Admission = count < limit ? .counted : .probation
            if admission == .counted { state.unauthenticated[address] = count + 1 }
            state.pending[connection] = Entry(address: address, admission: admission)
            return admission
        }
    }

    /// A request of `connection` authenticated: it no longer counts toward its address.
    func authenticated(_ connection: ObjectIdentifier) {
        state.withLock { state in
            guard let entry = state.pending.removeValue(forKey: connection) else { return }
            if entry.admission == .counted { Self.uncount(entry.address, in: &state) }
        }
    }

    /// Whether `connection` is on probation and has not authenticated yet.
    func isOnProbation(_ connection: ObjectIdentifier) -> Bool {
        state.withLock { $0.pending[connection]?.admission == .probation }
    }

    /// A connection closed.
    func close(_ connection: ObjectIdentifier) {
        state.withLock { state in
            guard let entry = state.pending.removeValue(forKey: connection) else { return }
            if entry.admission == .counted { Self.uncount(entry.address, in: &state) }
        }
    }

    /// The unauthenticated connections `address` has counted now.
    func unauthenticated(from address: String) -> Int {
        state.withLock { $0.unauthenticated[address, default: 0] }
    }

    private static func uncount(_ address: String, in state: inout State) {
        let count = state.unauthenticated[address, default: 1] - 1
        state.unauthenticated[address] = count > 0 ? count : nil
    }
}
