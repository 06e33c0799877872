import Synchronization

/// Open connections per client address, up to a limit.
final class ConnectionCounts: Sendable {
    /// The most connections one address may have open.
    let limit: Int
    private let counts = Mutex<[String: Int]>([:])

    init(limit: Int) { self.limit = limit }

    /// Counts a new connection from `address`; false (not counted) when it has `limit` already.
    func open(_ address: String) -> Bool {
        counts.withLock { open in
            let count = open[address, default: 0]
            guard count < limit else { return false }
            open[address] = count + 1
            return true
        }
    }

    /// A connection from `address` closed.
    func close(_ address: String) {
        counts.withLock { open in
            let count = (open[address] ?? 1) - 1
            open[address] = count > 0 ? count : nil
        }
    }
}
