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
/// A long poll that also watches other spaces waits on all of them at once
/// (``wait(spaces:timeout:)``).
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
    /// The waiting pulls, each by its id, and the ids waiting on each space (a pull that
    /// watches several spaces waits on each of them).
    private var waiters: [Int: (continuation: CheckedContinuation<Void, Never>, spaces: [Int64])] = [:]
    private var waiting: [Int64: Set<Int>] = [:]
    private var nextWaiter = 0
    /// Every notification and reconnection counted: what a pull read before a query, then
    /// reads again, tells whether any space may have changed in between.
    private(set) var notifications: UInt64 = 0
    /// Set by ``close()``: the server is stopping, and no pull waits any more.
    private(set) var isClosed = false

    /// The space's current count of notifications (plus reconnections).
    func generation(of space: Int64) -> UInt64 { epoch &+ (generations[space] ?? 0) }

    /// The spaces' current generations (``generation(of:)``).
    func generations(of spaces: [Int64]) -> [Int64: UInt64] {
        Dictionary(spaces.map { ($0, generation(of: $0)) }, uniquingKeysWith: { first, _ in first })
    }

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
        await wait(spaces: [space: seen], timeout: timeout)
    }

    /// Returns when any of the spaces' generation is past the one given for it, or after
    /// `timeout`, or when cancelled, or at once when the notifier is closed.
    nonisolated func wait(spaces seen: [Int64: UInt64], timeout: Duration) async {
        await withTaskGroup(of: Void.self) { group in
            group.addTask { try? await Task.sleep(for: timeout) }
            group.addTask { await self.waitForChange(seen) }
            await group.next()
            group.cancelAll()
        }
    }

    private func waitForChange(_ seen: [Int64: UInt64]) async {
        guard seen.allSatisfy({ generation(of: $0.key) == $0.value }), !isClosed else { return }
        let id = nextWaiter
        nextWaiter += 1
        await withTaskCancellationHandler {
            await withCheckedContinuation { continuation in
                if Task.isCancelled { continuation.resume(); return }
                let spaces = Array(seen.keys)
                waiters[id] = (continuation, spaces)
                for space in spaces { waiting[space, default: []].insert(id) }
            }
        } onCancel: {
            Task { await self.resume(waiter: id) }
        }
    }

    /// Resumes a waiter once, and forgets it in every space it waits on.
    private func resume(waiter id: Int) {
        guard let (continuation, spaces) = waiters.removeValue(forKey: id) else { return }
        for space in spaces {
            waiting[space]?.remove(id)
            if waiting[space]?.isEmpty == true { waiting[space] = nil }
        }
        continuation.resume()
    }

    private func notified(space: Int64) {
        generations[space, default: 0] &+= 1
        notifications &+= 1
        for id in waiting.removeValue(forKey: space) ?? [] { resume(waiter: id) }
    }

    private func wakeAll() {
        epoch &+= 1
        notifications &+= 1
        let all = waiters
        (waiters, waiting) = ([:], [:])
        for waiter in all.values { waiter.continuation.resume() }
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
