/// One lock per space, in this process, taken in arrival order. A push waits here for
/// its space's earlier pushes *before* it takes a database connection, so that a busy
/// space's queue holds no pool connection and other spaces' requests are not starved.
/// The advisory lock in the transaction still orders pushes between several servers on one
/// database.
///
/// ```swift
/// let response = try await locks.withLock(space) { try await Push.apply(body, space: space, database: database, logger: logger) }
/// ```
actor SpaceLocks {
    /// The spaces whose lock is held, each with its waiters in arrival order.
    private var held: [Int64: [CheckedContinuation<Void, Never>]] = [:]

    /// Runs `body` holding `space`'s lock.
    nonisolated func withLock<T: Sendable>(_ space: Int64, _ body: @Sendable () async throws -> T) async throws -> T {
        await acquire(space)
        do {
            let result = try await body()
            await release(space)
            return result
        } catch {
            await release(space)
            throw error
        }
    }

    private func acquire(_ space: Int64) async {
        guard held[space] != nil else {
            held[space] = []
            return
        }
        await withCheckedContinuation { held[space, default: []].append($0) }
    }

    private func release(_ space: Int64) {
        guard var waiters = held[space], !waiters.isEmpty else {
            held[space] = nil
            return
        }
        let next = waiters.removeFirst()
        held[space] = waiters
        next.resume()
    }
}
