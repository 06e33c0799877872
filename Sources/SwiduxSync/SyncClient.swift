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
    /// The shared space this client syncs (the query parameter `space` of its requests);
    /// `nil`: the token's own space (a JWT user's personal space).
    ///
    /// ```swift
    /// let family = try SyncClient(database: database, server: url, token: jwt, tables: tables, space: "family")
    /// family.space   // "family"
    /// ```
    public nonisolated let space: String?
    let logger: Logger
    /// Serializes push rounds and the application of pulled pages.
    let exclusive = AsyncMutex()
    /// One pull at a time.
    let pulling = AsyncMutex()
    /// Push rounds, pulled pages, the loops' failures and a refused token: what to do next.
    var machine: SyncStateMachine
    private var tablesDeclared = false
    /// Scope changes seen by pulls (each made the file sync as for the first time).
    var pullRebases = 0
    private var loops: [Task<Void, Never>] = []
    let pageSize: Int
    private let database: SwiduxDatabase
    /// Loop iterations of continuous sync (push and pull), for a check of its idle cost.
    private(set) var wakeUps = 0
    /// Wakes the push loop and the retry waits when the network comes back (Apple), when
    /// any request reaches the server again after one could not, and on ``retryNow()``.
    private let network: NetworkWatch

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
    ///   - space: The shared space to sync (a JWT user must be a member); `nil`, the default:
    ///     the token's own space. Rows of tables with a ``SyncTable/spaceColumn`` are this
    ///     space's when that column names it (`NULL` for the token's own space).
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
                space: String? = nil,
                pageSize: Int = SyncProtocol.maxPullLimit,
                trustedCertificates: SyncTrustedCertificates? = nil,
                retry: SyncRetryPolicy = .standard,
                logger: Logger = Logger(label: "swidux.sync")) throws {
        self.pageSize = max(1, min(pageSize, SyncProtocol.maxPullLimit))
        machine = SyncStateMachine(retry: retry, pullRetryCap: Self.pullRetryCap, longPollSeconds: Self.longPollSeconds)
        self.database = database
        do {
            engine = try SyncEngine(writer: database.writer, tables: tables, space: space)
        } catch let error as SyncError {
            throw error
        } catch {
            throw SyncError.local(error)
        }
        let network = NetworkWatch()
        self.network = network
        transport = SyncTransport(server: server, token: token, space: space, trusting: trustedCertificates, watch: network)
        self.space = space
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
        do {
            return try await syncRound()
        } catch let busy as ServerBusy {
            throw busy.syncError
        }
    }

    private func syncRound() async throws -> SyncReport {
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
        start(pulling: true)
    }

    /// ``start()``; without `pulling`, only local changes are pushed continuously (the
    /// space's rows are pulled when another client's long poll says so: ``SyncSpaces``).
    func start(pulling: Bool) {
        guard machine.start() else { return }
        network.start()
        loops.append(Task { await self.pushLoop() })
        if pulling { loops.append(Task { await self.pullLoop() }) }
    }

    /// Stops continuous sync (an open pull is cancelled). Local changes stay queued.
    ///
    /// ```swift
    /// await client.stop()
    /// ```
    public func stop() {
        machine.stop()
        for task in loops { task.cancel() }
        loops.removeAll()
        network.stop()
    }

    /// Ends every retry wait of continuous sync now, and tries a token the server refused
    /// again (continuous sync stops after a 401 until this is called).
    ///
    /// ```swift
    /// await client.retryNow()   // e.g. the user pressed "retry" after the server came back
    /// ```
    public func retryNow() {
        machine.retryNow()
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

    private func pushLoop() async {
        var setAside: [SetAsideChange] = []
        while machine.shouldContinue(cancelled: Task.isCancelled) {
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
                    // Changes a rule of the server refused are reported with this push: no
                    // pull need follow it (nothing was written).
                    let refusals = acknowledged.refused > 0 ? try local { try engine.takeNewRenames() } : []
                    if acknowledged.changes > 0 || nowSetAside != setAside || !refusals.isEmpty {
                        var report = SyncReport()
                        report.pushed = acknowledged.changes
                        report.refused = acknowledged.refused
                        report.reidentified = acknowledged.reidentified
                        report.rebased = acknowledged.rebased
                        report.setAside = nowSetAside
                        report.conflicts = refusals
                        for refusal in refusals { conflictContinuation.yield(refusal) }
                        setAside = nowSetAside
                        continuation.yield(.synced(report))
                    }
                }
                if machine.roundSucceeded(.push) == .reportRecovered { recovered("push") }
                await database.waitForCommit(after: seen, timeout: Self.slowPoll)
            } catch {
                let action = machine.failed(.push, Self.failure(error), cancelled: Task.isCancelled, jitter: Double.random(in: 0...1))
                guard await perform(action, error, "push", woken) else { return }
            }
        }
    }

    private func pullLoop() async {
        var first = true
        while machine.shouldContinue(cancelled: Task.isCancelled) {
            wakeUps += 1
            let woken = network.wakeMark
            do {
                try await declareTables()
                let applied = try await pull(wait: machine.pullWait) + refillColumns()
                await watch?.polled()
                let conflicts = try await fetchConflicts()
                if applied > 0 || !conflicts.isEmpty || first {
                    var report = SyncReport()
                    report.pulled = applied
                    report.parked = try local { try engine.parkedCount() }
                    report.conflicts = conflicts
                    continuation.yield(.synced(report))
                }
                first = false
                if machine.roundSucceeded(.pull) == .reportRecovered { recovered("pull") }
            } catch {
                let action = machine.failed(.pull, Self.failure(error), cancelled: Task.isCancelled, jitter: Double.random(in: 0...1))
                guard await perform(action, error, "pull", woken) else { return }
            }
        }
    }

    private static func failure(_ error: any Error) -> SyncStateMachine.Failure {
        if let busy = error as? ServerBusy { return .overLimit(retryAfter: busy.retryAfter) }
        if case .unauthorized? = error as? SyncError { return .unauthorized }
        return .other
    }

    /// Performs what the machine decided after a failed round; false: end the loop.
    private func perform(_ action: SyncStateMachine.FailureAction, _ error: any Error, _ what: String, _ woken: UInt64) async -> Bool {
        switch action {
        case .finish:
            return false
        case .retry(let delay):
            failed(error, what, delay)
            await network.waitForReturn(orFor: delay, unlessWokenSince: woken)
        case .backOff(let delay):
            failed(error, what, delay)
            // The server asked for this wait: a wake-up does not end it, ``stop()`` (cancelling) does.
            try? await Task.sleep(for: delay)
        case .waitForRetryNow(let announce):
            if announce {
                // The server's reason tells an expired sign-in from a revoked token.
                let refusal = error as? SyncError ?? .unauthorized("")
                logger.error("Swidux sync: \(refusal); sync stopped until retried")
                continuation.yield(.stopped(refusal))
            }
            // Rechecked now and then too: a wake-up that came just before this wait began is not lost.
            while machine.keepsWaitingForToken(cancelled: Task.isCancelled) { await network.waitForReturn(orFor: .seconds(5)) }
        }
        return true
    }

    /// The longest wait of the pull loop before it tries the server again.
    static let pullRetryCap: Duration = .seconds(4)

    /// How long the pull loop's request waits at the server for a change.
    static let longPollSeconds = 25

    /// How long the push loop waits for a commit before checking the outbox anyway (other
    /// processes' commits where no file notification reports them).
    static let slowPoll: Duration = .seconds(2)

    private func failed(_ error: any Error, _ what: String, _ delay: Duration) {
        let syncError = (error as? ServerBusy)?.syncError ?? error as? SyncError ?? .local(error)
        logger.error("Swidux sync: \(what) failed: \(syncError); retrying in \(delay)")
        continuation.yield(.failed(syncError, retryingIn: delay))
    }

    /// Reports `event` on ``events``.
    func reportEvent(_ event: SyncEvent) {
        continuation.yield(event)
    }

    private func recovered(_ what: String) {
        logger.info("Swidux sync: \(what) works again")
        continuation.yield(.recovered)
    }

    // MARK: - Steps

    func declareTables() async throws {
        guard !tablesDeclared else { return }
        let body = try JSONEncoder().encode(TablesRequest(tables: engine.tables.map(\.name)))
        _ = try await transport.send("PUT", SyncProtocol.tablesPath, body: body)
        tablesDeclared = true
    }

    /// Pushes until nothing is pending (stored mutations first, resent byte for byte).
    /// A 409 conflict (this file's mutation ids are also a copy's) takes a new client id
    /// and pushes again; a 409 scope change (another space, a replaced server database)
    /// queues every row for a first sync; a mutation refused as too large (413) has its
    /// largest change set aside and the rest is pushed.
    func push() async throws -> Acknowledgement {
        do {
            return try await exclusive.withLock { try await pushRound() }
        } catch let refusal as CodedRefusal {
            throw refusal.syncError
        }
    }

    /// Performs what a ``PushStateMachine`` asks for until the round ends (holding
    /// `exclusive`, so that pulled pages are applied between rounds, never during one).
    private func pushRound() async throws -> Acknowledgement {
        machine.pushBegan()
        defer { machine.pushEnded() }
        var total = Acknowledgement()
        var round = PushStateMachine(unversionedThrough: try local { try engine.unversionedMark() })
        var action = round.start()
        while true {
            switch action {
            case .prepareFirst(let answered, let requestBytes, let unversioned):
                try acknowledge(answered, into: &total)
                action = round.prepared(try local { try engine.preparePush(requestBytes: requestBytes, unversionedThrough: unversioned) })
            case .sendPush(let group, let answered, let next):
                let (clientID, scope) = try local { (try engine.clientID(), try engine.scope()) }
                let body = try SyncEngine.pushBody(clientID: clientID, scope: scope, group)
                total.bytes += body.count
                do {
                    async let answer = transport.send("POST", SyncProtocol.pushPath, body: body, reading: PushAnswer.read)
                    try acknowledge(answered, into: &total)
                    var upcoming: [PendingMutation] = []
                    if let next {
                        let inFlight = try local { try Set(next.inFlight.flatMap { try $0.changedKeys() }) }
                        upcoming = try local {
                            try engine.preparePush(requestBytes: round.requestBytes, requestRows: round.requestRows, after: next.inFlight.map(\.id).max() ?? 0, inFlight: inFlight,
                                                   unversionedThrough: next.unversionedThrough, scanAfter: SyncEngine.scanAfter(next.inFlight))
                        }
                    }
                    action = round.pushAnswered(try await answer, sentScope: scope, upcoming: upcoming)
                } catch let refusal as CodedRefusal {
                    action = round.refused(refusal.code, message: refusal.message)
                } catch SyncError.rejected(let status, let message) where status == 413 {
                    guard let repair = round.tooLarge(message: message) else { throw SyncError.rejected(status: status, message: message) }
                    action = repair
                }
            case .reidentify(let message):
                logger.warning("Swidux sync: \(message); taking a new client id")
                try local { try engine.reidentify() }
                total.reidentified = true
                action = round.repaired()
            case .rebase(let message, let reported):
                if let message { logger.warning("Swidux sync: \(message)") }
                try local { try engine.rebase() }
                ownVersions.removeAll()
                if reported { total.rebased = true }
                action = round.repaired()
            case .setAsideLargest(let mutation, let message):
                logger.error("Swidux sync: a change is too large to send, set aside: \(message)")
                try local { try engine.setAsideLargest(of: mutation) }
                action = round.repaired()
            case .finish(let answered):
                try acknowledge(answered, into: &total)
                // Everything queued by a first sync is pushed: the outbox's index is made now,
                // on a small outbox, rather than by the next pulled page's transaction. Only
                // after a push that sent something: an idle round reads nothing more.
                if total.mutations > 0 { try local { try engine.ensureOutboxIndex() } }
                return total
            }
        }
    }

    /// Writes a push answer to the file (versions, the outbox entries it covers), in one
    /// transaction, and counts it.
    private func acknowledge(_ answered: PushStateMachine.Answered?, into total: inout Acknowledgement) throws {
        guard let answered else { return }
        let response = answered.answer, group = answered.sent
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

    /// Other spaces this client's long polls also watch, and what to do when one ends.
    var watch: SyncWatch?

    /// Versions only this client's pushes wrote, not pulled past yet: pulls skip them.
    var ownVersions = OwnVersions()

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
