import Foundation
import GRDB
import Logging
import SwiduxSQLite
import SwiduxSyncWire

/// Keeps the tables of a `SwiduxDatabase` in sync with a `swidux-sync-server`: local
/// changes are pushed, the other clients' changes pulled and written to the file — where a
/// store that follows the database (`store.follow(database)`) sees them as external changes.
///
/// ```swift
/// let client = try SyncClient(database: database, server: URL(string: "http://127.0.0.1:8080")!,
///                             token: token, tables: [.table(AppDatabase.lists), .table(AppDatabase.items)])
/// let report = try await client.sync()   // one round: push everything, pull everything
/// await client.start()                    // or: continuously, until stop()
/// ```
///
/// The client works on the database file only, never on a store: SQLite triggers record
/// every change of a synced table in an outbox in the transaction that made it (a Swidux
/// flush, plain SQL, a cascade — while sync runs or not), so that a change is either in the
/// file and queued, or in neither. The first sync of a file pushes every row it holds.
/// Merges are by column: an update pushes only the columns it changed, and the server keeps
/// every other column (those of other devices, and those this app's schema lacks). Two
/// devices changing the same column: the later push (in server order) wins, and the
/// replaced value is listed on the device that wrote it (``conflicts()``, ``newConflicts``,
/// ``setResolver(for:_:)``). A deletion wins over an update made without having seen it.
/// See <doc:SyncingThroughPostgreSQL>.
public actor SyncClient {
    /// What continuous sync does and what fails, as it happens (also logged). Errors are
    /// retried with a growing delay (``SyncRetryPolicy``; by default up to 30 s), cut short
    /// when the server answers again.
    ///
    /// ```swift
    /// Task { for await event in client.events { print(event) } }
    /// ```
    public nonisolated let events: AsyncStream<SyncEvent>
    private let continuation: AsyncStream<SyncEvent>.Continuation
    /// The conflicts this device learns of, as it learns them (those a resolver did not
    /// resolve): values of this device that another device's later push replaced. One
    /// consumer; the newest 100 are kept while nobody reads.
    ///
    /// ```swift
    /// Task { for await conflict in client.newConflicts { print("replaced: \(conflict)") } }
    /// ```
    public nonisolated let newConflicts: AsyncStream<SyncConflict>
    let conflictContinuation: AsyncStream<SyncConflict>.Continuation
    /// The space's last conflict id an answer showed (``SwiduxSyncWire/PullResponse/conflicts``).
    var conflictMark: Int64 = 0

    let engine: SyncEngine
    let transport: SyncTransport
    private let logger: Logger
    /// Serializes push rounds and the application of pulled pages.
    let exclusive = AsyncMutex()
    /// One pull at a time.
    private let pulling = AsyncMutex()
    /// Changes at the start and the end of every push round: a page pulled across a
    /// change is discarded (see ``pull(wait:)``).
    private var pushGeneration: Int64 = 0
    private var tablesDeclared = false
    /// Scope changes seen by pulls (each made the file sync as for the first time).
    private var pullRebases = 0
    private var running: [Task<Void, Never>] = []
    let pageSize: Int
    private let database: SwiduxDatabase
    /// Loop iterations of continuous sync (push and pull), for a check of its idle cost.
    private(set) var wakeUps = 0
    /// Wakes the push loop and the retry waits when the network comes back (Apple), when
    /// any request reaches the server again after one could not, and on ``retryNow()``.
    private let network: NetworkWatch
    /// The waits between failed attempts of continuous sync.
    private let retry: SyncRetryPolicy
    /// The server refused the token (401): the loops wait for ``retryNow()`` instead of
    /// sending it again.
    private var tokenRefused = false

    /// A client for `tables` of `database` (created once: installs its tables and triggers).
    ///
    /// ```swift
    /// let client = try SyncClient(database: database, server: url, token: token, tables: [.table(AppDatabase.items)])
    /// ```
    ///
    /// - Parameters:
    ///   - database: A writable database.
    ///   - server: The server's base URL (`https://host` or `http://host:port`).
    ///   - token: A bearer token of the space (`swidux-sync-server token create`).
    ///   - tables: The tables to sync, named like on every other client of the space.
    ///   - pageSize: Rows asked for per pull request (at most, and by default,
    ///     `SyncProtocol.maxPullLimit`; the server also bounds a page in bytes).
    ///   - trustedCertificates: Certificate authorities trusted for an `https://` server
    ///     besides the system's (a private or test CA); nil: the system's only.
    ///   - retry: The waits of continuous sync after a failure (any wait ends as soon as the
    ///     server answers again).
    ///   - logger: Where failures and retries are logged.
    /// - Throws: ``SyncError/local(_:)`` when the database cannot be prepared (read-only,
    ///   a table missing, an invalid table name).
    public init(database: SwiduxDatabase, server: URL, token: String, tables: [SyncTable],
                pageSize: Int = SyncProtocol.maxPullLimit,
                trustedCertificates: SyncTrustedCertificates? = nil,
                retry: SyncRetryPolicy = .standard,
                logger: Logger = Logger(label: "swidux.sync")) throws {
        self.pageSize = max(1, min(pageSize, SyncProtocol.maxPullLimit))
        self.retry = retry
        self.database = database
        do {
            engine = try SyncEngine(writer: database.writer, tables: tables)
        } catch let error as SyncError {
            throw error
        } catch {
            throw SyncError.local(error)
        }
        let network = NetworkWatch()
        self.network = network
        transport = SyncTransport(server: server, token: token, trusting: trustedCertificates, watch: network)
        self.logger = logger
        (events, continuation) = AsyncStream.makeStream(of: SyncEvent.self, bufferingPolicy: .bufferingNewest(100))
        (newConflicts, conflictContinuation) = AsyncStream.makeStream(of: SyncConflict.self, bufferingPolicy: .bufferingNewest(100))
    }

    // MARK: - One round

    /// One full round: declares the tables, pushes every pending change, pulls every new
    /// row, and repeats (at most a few times) while the pull left local changes to push
    /// (a pulled deletion cascading to local rows).
    ///
    /// ```swift
    /// let report = try await client.sync()
    /// if report.pending == 0 { print("everything acknowledged") }
    /// ```
    ///
    /// - Throws: ``SyncError``; what was acknowledged and applied before stays.
    @discardableResult
    public func sync() async throws -> SyncReport {
        var report = SyncReport()
        try local { try engine.checkSchema() }
        try await declareTables()
        let rebasesBefore = pullRebases
        for _ in 0..<5 {
            let acknowledged = try await push()
            report.pushed += acknowledged.changes
            report.pushedBytes += acknowledged.bytes
            report.refused += acknowledged.refused
            report.reidentified = report.reidentified || acknowledged.reidentified
            report.rebased = report.rebased || acknowledged.rebased
            report.pulled += try await pull(wait: 0)
            report.pulled += try await refillColumns()
            report.conflicts += try await fetchConflicts()
            if try local({ try engine.pendingCount() }) == 0 { break }
        }
        report.pending = try local { try engine.pendingCount() }
        report.parked = try local { try engine.parkedCount() }
        report.setAside = try local { try engine.setAsideChanges() }
        report.rebased = report.rebased || pullRebases != rebasesBefore
        return report
    }

    // MARK: - Continuous

    /// Syncs continuously until ``stop()``: pushes right after every local commit (the
    /// app's own commits wake the push loop in process; other processes' commits wake it on
    /// Linux through inotify, elsewhere within a 2 s slow poll), and keeps a long-polling
    /// pull open so that other clients' changes arrive as soon as the server has them.
    /// Idle, it wakes about once every 2 s. Failures are reported on ``events`` and the
    /// logger and retried with a growing delay; where the Network framework exists, the
    /// retry starts as soon as the network comes back. The app keeps working offline
    /// meanwhile. Calling it again does nothing.
    ///
    /// ```swift
    /// await client.start()
    /// ```
    public func start() {
        guard running.isEmpty else { return }
        network.start()
        running.append(Task { await self.pushLoop() })
        running.append(Task { await self.pullLoop() })
    }

    /// Stops continuous sync (an open pull is cancelled). Local changes stay queued.
    ///
    /// ```swift
    /// await client.stop()
    /// ```
    public func stop() {
        for task in running { task.cancel() }
        running.removeAll()
        network.stop()
    }

    /// Ends every retry wait of continuous sync now, and tries a token the server refused
    /// again (continuous sync stops after a 401 until this is called).
    ///
    /// ```swift
    /// await client.retryNow()   // e.g. the user pressed "retry" after the server came back
    /// ```
    public func retryNow() {
        tokenRefused = false
        network.wakeAll()
    }

    /// How many local changes wait to be pushed (rows changed since the last acknowledged
    /// push, and built requests not yet acknowledged).
    ///
    /// ```swift
    /// let waiting = try await client.pendingChanges()   // "offline · \(waiting) changes waiting"
    /// ```
    public func pendingChanges() throws -> Int {
        try local { try engine.pendingCount() }
    }

    /// After a 401: says so once, then waits until ``retryNow()`` (or ``stop()``).
    private func stopForRefusedToken(_ error: any Error) async -> Bool {
        guard case .unauthorized? = error as? SyncError else { return false }
        if !tokenRefused {
            tokenRefused = true
            logger.error("Swidux sync: the server refused the token; sync stopped until retried")
            continuation.yield(.stopped(.unauthorized))
        }
        // Rechecked now and then too: a wake-up that came just before this wait began is not lost.
        while tokenRefused, !Task.isCancelled { await network.waitForReturn(orFor: .seconds(5)) }
        return true
    }

    private func pushLoop() async {
        var failures = 0
        var setAside: [SetAsideChange] = []
        while !Task.isCancelled {
            wakeUps += 1
            // Read before the check: a commit made during the round wakes the next wait.
            let seen = database.commitCount
            // Likewise: the server answering the long poll during a failed push ends the backoff.
            let woken = network.wakeMark
            do {
                try local { try engine.checkSchema() }
                if try local({ try engine.hasPending() }) {
                    try await declareTables()
                    let acknowledged = try await push()
                    let nowSetAside = try local { try engine.setAsideChanges() }
                    if acknowledged.changes > 0 || nowSetAside != setAside {
                        var report = SyncReport()
                        report.pushed = acknowledged.changes
                        report.refused = acknowledged.refused
                        report.reidentified = acknowledged.reidentified
                        report.rebased = acknowledged.rebased
                        report.setAside = nowSetAside
                        setAside = nowSetAside
                        continuation.yield(.synced(report))
                    }
                }
                if failures > 0 { recovered("push") }
                failures = 0
                await database.waitForCommit(after: seen, timeout: Self.slowPoll)
            } catch {
                if Task.isCancelled { return }
                if await stopForRefusedToken(error) { failures = 0; continue }
                failures += 1
                let delay = retry.delay(afterFailures: failures)
                failed(error, "push", delay)
                await network.waitForReturn(orFor: delay, unlessWokenSince: woken)
            }
        }
    }

    private func pullLoop() async {
        var failures = 0
        var first = true
        while !Task.isCancelled {
            wakeUps += 1
            let woken = network.wakeMark
            do {
                try await declareTables()
                // After a failure, a pull that the server answers at once: a long poll would
                // hold the news of the server's return (which ends the push loop's backoff)
                // until a change or the end of its wait.
                let applied = try await pull(wait: failures > 0 ? 0 : Self.longPollSeconds) + refillColumns()
                let conflicts = try await fetchConflicts()
                if applied > 0 || !conflicts.isEmpty || first {
                    var report = SyncReport()
                    report.pulled = applied
                    report.parked = try local { try engine.parkedCount() }
                    report.conflicts = conflicts
                    continuation.yield(.synced(report))
                }
                first = false
                if failures > 0 { recovered("pull") }
                failures = 0
            } catch {
                if Task.isCancelled { return }
                if await stopForRefusedToken(error) { failures = 0; continue }
                failures += 1
                // The long poll is what notices the server's return, so it tries again within
                // a few seconds (a refused connection costs nothing), not after up to 30 s.
                let delay = min(retry.delay(afterFailures: failures), Self.pullRetryCap)
                failed(error, "pull", delay)
                await network.waitForReturn(orFor: delay, unlessWokenSince: woken)
            }
        }
    }

    /// The longest wait of the pull loop before it tries the server again.
    static let pullRetryCap: Duration = .seconds(4)

    /// How long the pull loop's request waits at the server for a change.
    static let longPollSeconds = 25

    /// How long the push loop waits for a commit before checking the outbox anyway (other
    /// processes' commits where no file notification reports them).
    static let slowPoll: Duration = .seconds(2)

    private func failed(_ error: any Error, _ what: String, _ delay: Duration) {
        let syncError = error as? SyncError ?? .local(error)
        logger.error("Swidux sync: \(what) failed: \(syncError); retrying in \(delay)")
        continuation.yield(.failed(syncError, retryingIn: delay))
    }

    private func recovered(_ what: String) {
        logger.info("Swidux sync: \(what) works again")
        continuation.yield(.recovered)
    }

    // MARK: - Steps

    private func declareTables() async throws {
        guard !tablesDeclared else { return }
        let body = try JSONEncoder().encode(TablesRequest(tables: engine.tables.map(\.name)))
        _ = try await transport.send("PUT", SyncProtocol.tablesPath, body: body)
        tablesDeclared = true
    }

    /// The size of a push request built while another is in flight: 4 MiB, a quarter of the
    /// server's limit (with 8 MiB a first push of 100,000 rows peaked at 150–160 MiB
    /// and took 3 % longer; with 2 MiB the client's CPU grew by a tenth).
    static let requestBytes = SyncProtocol.maxBodyBytes / 4

    /// Pushes until nothing is pending (stored mutations first, resent byte for byte).
    /// A 409 conflict (this file's mutation ids are also a copy's) takes a new client id
    /// and pushes again; a 409 scope change (another space, a replaced server database)
    /// queues every row for a first sync; a mutation refused as too large (413) has its
    /// largest change set aside and the rest is pushed.
    func push() async throws -> Acknowledgement {
        await exclusive.lock()
        pushGeneration += 1
        defer { pushGeneration += 1 }
        do {
            var total = Acknowledgement()
            var refusals = 0
            // One request's worth of mutations at a time (built from the outbox, or stored),
            // until nothing is pending, as a pipeline (a first push waited for the
            // server, then built the next request, then sent it): while a request is in
            // flight, the answer before it is acknowledged and the next request built and
            // stored. Local transactions keep their order: an answer is acknowledged before
            // anything else is built or refused, and the last one before this returns.
            var prepared: [PendingMutation]?
            var unversioned = try local { try engine.unversionedMark() }
            var answered: (response: PushAnswer, group: [PendingMutation])?
            func acknowledgeAnswered() throws {
                guard let (response, group) = answered else { return }
                answered = nil
                let acknowledged = try local { try engine.acknowledge(response, sent: group) }
                if let own = response.ownVersions { ownVersions.note(own) }
                if let mark = response.conflicts { conflictMark = max(conflictMark, mark) }
                total.changes += acknowledged.changes
                total.refused += acknowledged.refused
                total.mutations += acknowledged.mutations
                if acknowledged.mutations < group.count {
                    throw SyncError.rejected(status: 200, message: "the server acknowledged \(response.acknowledged.map { "\($0)" } ?? "mutations up to \(response.lastMutationID)") only, of \(group.map(\.id))")
                }
            }
            rounds: while refusals < 1000 {
                let (clientID, scope) = try local { (try engine.clientID(), try engine.scope()) }
                let pending: [PendingMutation]
                if let prepared {
                    pending = prepared
                } else {
                    try acknowledgeAnswered()
                    // A first request of a pipeline is small: the server starts applying
                    // sooner, while the client builds the next, larger one.
                    pending = try local { try engine.preparePush(requestBytes: SyncProtocol.maxBodyBytes / 16, unversionedThrough: unversioned) }
                }
                prepared = nil
                if pending.isEmpty { break }
                let groups = SyncEngine.requests(pending)
                for (index, group) in groups.enumerated() {
                    let body = try SyncEngine.pushBody(clientID: clientID, scope: scope, group)
                    total.bytes += body.count
                    let response: PushAnswer
                    var upcoming: [PendingMutation] = []
                    do {
                        async let answer = transport.send("POST", SyncProtocol.pushPath, body: body, reading: PushAnswer.read)
                        try acknowledgeAnswered()
                        if index == groups.count - 1 {
                            // The next request: stored mutations after these, else new ones
                            // from the outbox without these rows.
                            let inFlight = try local { try Set(pending.flatMap { try $0.changedKeys() }) }
                            upcoming = try local {
                                try engine.preparePush(requestBytes: Self.requestBytes, after: pending.map(\.id).max() ?? 0, inFlight: inFlight,
                                                       unversionedThrough: unversioned, scanAfter: SyncEngine.scanAfter(pending))
                            }
                        }
                        response = try await answer
                    } catch let refusal as CodedRefusal {
                        refusals += 1
                        unversioned = 0
                        switch refusal.code {
                        case .mutationConflict:
                            logger.warning("Swidux sync: \(refusal.message); taking a new client id")
                            try local { try engine.reidentify() }
                            total.reidentified = true
                        case .scopeChanged:
                            logger.warning("Swidux sync: \(refusal.message)")
                            try local { try engine.rebase() }
                            ownVersions.removeAll()
                            total.rebased = true
                        }
                        continue rounds
                    } catch SyncError.rejected(let status, let message) where status == 413 && group.count == 1 {
                        refusals += 1
                        unversioned = 0
                        logger.error("Swidux sync: a change is too large to send, set aside: \(message)")
                        try local { try engine.setAsideLargest(of: group[0]) }
                        continue rounds
                    }
                    if let serverScope = response.scope, let scope, serverScope != scope {
                        // Cannot happen with a server that checks the scope; be safe anyway.
                        refusals += 1
                        unversioned = 0
                        try local { try engine.rebase() }
                        ownVersions.removeAll()
                        continue rounds
                    }
                    answered = (response, group)
                    // Built from the outbox as it was: nothing built means look again (a
                    // change made meanwhile).
                    if !upcoming.isEmpty { prepared = upcoming }
                }
            }
            try acknowledgeAnswered()
            // Everything queued by a first sync is pushed: the outbox's index is made now,
            // on a small outbox, rather than by the next pulled page's transaction. Only
            // after a push that sent something: an idle round reads nothing more.
            if total.mutations > 0 { try local { try engine.ensureOutboxIndex() } }
            await exclusive.unlock()
            return total
        } catch let refusal as CodedRefusal {
            await exclusive.unlock()
            throw refusal.syncError
        } catch {
            await exclusive.unlock()
            throw error
        }
    }

    /// Versions only this client's pushes wrote, not pulled past yet: pulls skip them.
    private var ownVersions = OwnVersions()

    /// Pulls pages until the server has no more (the first one waiting up to `wait`
    /// seconds for a change); returns the rows applied. A page whose request overlapped a
    /// push is discarded and pulled again: skipping rows with a local change is only right
    /// when the server produced the page before any of those changes reached it.
    func pull(wait: Int) async throws -> Int {
        await pulling.lock()
        // The next page, asked for while this one is applied (a first pull waited
        // for each page's request after writing the one before). It is used only when the
        // cursor it starts after is the stored one and no push began since it was asked for.
        var ahead: (after: Int64, generation: Int64, page: Task<PullResponse, any Error>)?
        defer { ahead?.page.cancel() }
        do {
            var applied = 0
            var wait = wait
            while !Task.isCancelled {
                await exclusive.lock()
                let generation = pushGeneration
                let cursor: Int64
                do { cursor = try local { try engine.cursor() } } catch { await exclusive.unlock(); throw error }
                // Own versions ahead: first ask for one row; when it is already one of them,
                // nothing else lies before them and the cursor jumps past them.
                let probe = ownVersions.probe(after: cursor)
                await exclusive.unlock()
                let page: PullResponse
                if let next = ahead, next.after == cursor, next.generation == generation, !probe, wait == 0 {
                    ahead = nil
                    page = try await next.page.value
                } else {
                    ahead?.page.cancel()
                    ahead = nil
                    page = try await pullPage(after: cursor, limit: probe ? 1 : pageSize, wait: wait)
                }
                await exclusive.lock()
                guard generation == pushGeneration else {
                    await exclusive.unlock()
                    wait = 0
                    continue
                }
                let result: PageResult
                let hasMore: Bool
                do {
                    // The cursor belongs to another scope (another space's token, a replaced
                    // server database): a first sync. Past the server's end: pull again from 0.
                    if let scope = page.scope, let stored = try local({ try engine.scope() }), scope != stored {
                        logger.warning("Swidux sync: the server's scope changed (\(stored) → \(scope)): syncing as for the first time")
                        try local { try engine.rebase() }
                        ownVersions.removeAll()
                        pullRebases += 1
                        pushGeneration += 2
                        await exclusive.unlock()
                        wait = 0
                        continue
                    }
                    if let end = page.end, cursor > end {
                        logger.warning("Swidux sync: the cursor \(cursor) is past the server's end \(end): pulling everything again")
                        try local { try engine.resetCursor() }
                        ownVersions.removeAll()
                        await exclusive.unlock()
                        wait = 0
                        continue
                    }
                    // Every version up to the page's last one was seen: an own range it reached
                    // is skipped whole.
                    let next = ownVersions.cursor(after: page)
                    if page.hasMore, next == page.cursor, !ownVersions.probe(after: page.cursor) {
                        let transport = transport, after = page.cursor, limit = pageSize
                        ahead = (after, generation, Task.detached {
                            try await Self.pullPage(transport, after: after, limit: limit, wait: 0)
                        })
                    }
                    result = try local { try engine.apply(page, cursor: next) }
                    if let mark = page.conflicts { conflictMark = max(conflictMark, mark) }
                    if next > page.cursor { hasMore = true } else { hasMore = page.hasMore }
                } catch { await exclusive.unlock(); throw error }
                await exclusive.unlock()
                applied += result.applied
                wait = 0
                if !hasMore { break }
            }
            await pulling.unlock()
            return applied
        } catch {
            await pulling.unlock()
            throw error
        }
    }

    private func pullPage(after cursor: Int64, limit: Int, wait: Int) async throws -> PullResponse {
        try await Self.pullPage(transport, after: cursor, limit: limit, wait: wait)
    }

    /// `GET /v1/pull` after `cursor`.
    private static func pullPage(_ transport: SyncTransport, after cursor: Int64, limit: Int, wait: Int) async throws -> PullResponse {
        try await transport.send(
            "GET", SyncProtocol.pullPath,
            query: [URLQueryItem(name: "after", value: String(cursor)),
                    URLQueryItem(name: "limit", value: String(limit)),
                    URLQueryItem(name: "wait", value: String(wait))],
            timeout: TimeInterval(wait + 30), reading: WireReader.pullResponse)
    }

    func local<T>(_ body: () throws -> T) throws -> T {
        do {
            return try body()
        } catch let error as SyncError {
            throw error
        } catch {
            throw SyncError.local(error)
        }
    }
}
