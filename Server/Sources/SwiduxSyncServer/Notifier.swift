import Logging
import PostgresNIO

/// Wakes long polls when a push commits: one dedicated connection LISTENs on
/// ``Push/channel`` and counts notifications per space; a waiting pull sleeps until its
/// space's count moves past the one it read before querying, or its timeout.
///
/// A notification is only a hint (the pull always queries again). When the connection
/// drops it reconnects, and wakes every waiter, since notifications may have been missed.
///
/// A notification whose payload is the space's id and ``spacesChangedSuffix`` says that the
/// spaces of the user whose personal space this is changed (a membership added, removed or
/// given another role): it wakes the space's waiters too, and also moves its count of such
/// changes (``spacesChanges(of:)``), which ends a long poll there with its empty page.
///
/// ```swift
/// let seen = await notifier.generation(of: space)
/// // query; if empty:
/// await notifier.wait(space: space, after: seen, timeout: .seconds(30))
/// ```
actor Notifier {
    private var generations: [Int64: UInt64] = [:]
    /// The notifications per space that its user's spaces changed.
    private var spaceListChanges: [Int64: UInt64] = [:]
    /// Added to every space's generation when the connection (re)starts.
    private var epoch: UInt64 = 0
    private var waiters: [Int64: [Int: CheckedContinuation<Void, Never>]] = [:]
    private var nextWaiter = 0
    /// Set by ``close()``: the server is stopping, and no pull waits any more.
    private(set) var isClosed = false

    /// The space's current count of notifications (plus reconnections).
    func generation(of space: Int64) -> UInt64 { epoch &+ (generations[space] ?? 0) }

    /// The payload's suffix, after the personal space's id, of a notification that its
    /// user's spaces changed.
    static let spacesChangedSuffix = " spaces"

    /// How many times the spaces of the user whose personal space this is changed (not
    /// moved by a reconnection: thousands of polls would all answer at once for a change
    /// that, most likely, did not happen).
    func spacesChanges(of space: Int64) -> UInt64 { spaceListChanges[space] ?? 0 }

    /// Ends every wait, now and later (graceful shutdown: open long polls answer at once,
    /// so that the server stops without waiting for their timeouts).
    func close() {
        isClosed = true
        wakeAll()
    }

    /// Returns when the space's generation is past `seen`, or after `timeout`, or when
    /// cancelled, or at once when the notifier is closed.
    nonisolated func wait(space: Int64, after seen: UInt64, timeout: Duration) async {
        await withTaskGroup(of: Void.self) { group in
            group.addTask { try? await Task.sleep(for: timeout) }
            group.addTask { await self.waitForChange(space: space, after: seen) }
            await group.next()
            group.cancelAll()
        }
    }

    private func waitForChange(space: Int64, after seen: UInt64) async {
        guard generation(of: space) == seen, !isClosed else { return }
        let id = nextWaiter
        nextWaiter += 1
        await withTaskCancellationHandler {
            await withCheckedContinuation { continuation in
                if Task.isCancelled { continuation.resume(); return }
                waiters[space, default: [:]][id] = continuation
            }
        } onCancel: {
            Task { await self.resume(space: space, waiter: id) }
        }
    }

    private func resume(space: Int64, waiter: Int) {
        waiters[space]?.removeValue(forKey: waiter)?.resume()
    }

    private func notified(space: Int64) {
        generations[space, default: 0] &+= 1
        for continuation in (waiters.removeValue(forKey: space) ?? [:]).values { continuation.resume() }
    }

    private func wakeAll() {
        epoch &+= 1
        let all = waiters
        waiters = [:]
        for continuation in all.values.flatMap(\.values) { continuation.resume() }
    }

    /// Listens until cancelled, reconnecting after a failure: after 250 ms, then backing
    /// off to 2 s while PostgreSQL stays away, logging the 1st, 2nd, 4th, 8th… failure only.
    /// It is also the database's probe: a failed connection marks `database` unavailable,
    /// a working one available again.
    func run(configuration: PostgresConnection.Configuration, database: Database?, logger: Logger) async {
        var failures = 0
        while !Task.isCancelled {
            do {
                let connection = try await PostgresConnection.connect(configuration: configuration, id: 0, logger: logger)
                if failures > 0 { logger.info("the LISTEN connection works again", metadata: ["failures": "\(failures)"]) }
                database?.markAvailable()
                failures = 0
                do {
                    try await withTaskCancellationHandler {
                        try await connection.listen(on: Push.channel) { notifications in
                            wakeAll()
                            for try await notification in notifications {
                                if let space = Int64(notification.payload) {
                                    notified(space: space)
                                } else if notification.payload.hasSuffix(Self.spacesChangedSuffix),
                                          let space = Int64(notification.payload.dropLast(Self.spacesChangedSuffix.count)) {
                                    spaceListChanges[space, default: 0] &+= 1
                                    notified(space: space)
                                }
                            }
                        }
                    } onCancel: {
                        Task { try? await connection.close() }
                    }
                } catch {
                    // Closed in every case (postgres-nio asserts that a connection is closed before it goes).
                    try? await connection.close()
                    throw error
                }
                try? await connection.close()
            } catch {
                failures += 1
                if !Task.isCancelled { database?.markUnavailable() }
                if !Task.isCancelled, failures.nonzeroBitCount == 1 {
                    logger.warning("the LISTEN connection failed; reconnecting", metadata: ["error": "\(error)", "failures": "\(failures)"])
                }
            }
            wakeAll()
            try? await Task.sleep(for: Self.reconnectDelay(failures: failures))
        }
    }

    /// 250 ms, doubling per consecutive failure, at most 2 s (PostgreSQL's return is noticed
    /// within about 2 s).
    static func reconnectDelay(failures: Int) -> Duration {
        .milliseconds(min(2_000, 250 << min(failures, 6)))
    }
}
