/// The decisions of a ``SyncClient`` as a value: events in (a push round began or ended,
/// a page arrived, a round of a loop succeeded or failed, ``SyncClient/retryNow()``,
/// ``SyncClient/stop()``), the next action out. The client (an actor) performs the actions
/// — network, database, waits — and owns no counters or flags of its own, so that each
/// rule can be tested here without a server or a file.
///
/// ```swift
/// var machine = SyncStateMachine(retry: .standard)
/// let ticket = machine.pageRequested()
/// machine.pushBegan()
/// machine.pageArrived(ticket)   // .discardPage: a push ran while the page was on its way
/// ```
struct SyncStateMachine {
    /// The two loops of continuous sync.
    enum Loop: Hashable {
        case push
        case pull
    }

    /// Marks a pull request with the push rounds seen when it was asked for.
    struct PageTicket: Equatable {
        fileprivate let pushEdges: Int64
    }

    /// What to do with a page that arrived.
    enum PageAction: Equatable {
        case applyPage
        /// A push round began or ended since the page was asked for: its rows may predate
        /// local changes that already reached the server, so skipping those rows (they
        /// are changed locally) could lose the server's newer values. Ask again.
        case discardPage
    }

    /// What a loop does after a round that worked.
    enum SuccessAction: Equatable {
        /// Rounds failed before this one: say that sync works again, then go on.
        case reportRecovered
        case proceed
    }

    /// What a loop does after a round that failed.
    enum FailureAction: Equatable {
        /// Report the failure, wait `after` (any wake-up of the network watch ends it
        /// early), then try again.
        case retry(after: Duration)
        /// The server refused the request as over one of its limits: report the failure and
        /// wait `after` — at least what the server asked for — whatever wakes the network
        /// watch meanwhile (only ``SyncClient/stop()`` ends it), then try again.
        case backOff(after: Duration)
        /// The server refused the token: sending it again would be refused too. Wait for
        /// ``SyncClient/retryNow()``; `announce` is true for the first loop to learn it.
        case waitForRetryNow(announce: Bool)
        /// The loop was stopped: end it.
        case finish
    }

    /// How a failure looked to the loop.
    enum Failure: Equatable {
        case unauthorized
        /// 429: over one of the server's limits, with the wait its `Retry-After` asked for.
        case overLimit(retryAfter: Duration?)
        case other
    }

    let retry: SyncRetryPolicy
    /// The pull loop's longest wait: its long poll is what notices the server's return
    /// (which ends the push loop's backoff), so it tries again within a few seconds.
    let pullRetryCap: Duration
    /// How long the pull loop's request waits at the server for a change.
    let longPollSeconds: Int

    /// Push rounds' beginnings and ends (and scope changes seen by pulls, which count as a
    /// round each): a page is applied only when none happened since it was asked for.
    private var pushEdges: Int64 = 0
    private(set) var pushing = false
    private var failures: [Loop: Int] = [:]
    /// The server refused the token (401): both loops wait for ``retryNow()``.
    private(set) var tokenRefused = false
    private(set) var running = false

    init(retry: SyncRetryPolicy, pullRetryCap: Duration = .seconds(4), longPollSeconds: Int = 25) {
        self.retry = retry
        self.pullRetryCap = pullRetryCap
        self.longPollSeconds = longPollSeconds
    }

    // MARK: - Push rounds and pulled pages

    mutating func pushBegan() {
        precondition(!pushing, "push rounds overlap: they are serialized by the client's lock")
        pushing = true
        pushEdges += 1
    }

    mutating func pushEnded() {
        precondition(pushing, "a push round ended that did not begin")
        pushing = false
        pushEdges += 1
    }

    /// A pull saw the server's scope change and queued every row for a first sync: pages
    /// asked for before are of the old state, as if a push round had run.
    mutating func scopeChanged() {
        pushEdges += 2
    }

    /// A pull request is about to be sent: its ticket goes with the page.
    func pageRequested() -> PageTicket {
        PageTicket(pushEdges: pushEdges)
    }

    /// A page arrived (checked holding the lock that serializes push rounds).
    func pageArrived(_ ticket: PageTicket) -> PageAction {
        ticket.pushEdges == pushEdges ? .applyPage : .discardPage
    }

    // MARK: - Continuous sync

    /// ``SyncClient/start()``: false when already running (the call does nothing).
    mutating func start() -> Bool {
        guard !running else { return false }
        running = true
        failures = [:]
        return true
    }

    mutating func stop() {
        running = false
    }

    /// Whether a loop should begin another round (`cancelled`: its task's state).
    func shouldContinue(cancelled: Bool) -> Bool {
        running && !cancelled
    }

    /// The pull loop's wait at the server: none right after a failure (a long poll would
    /// hold the news of the server's return until a change or the end of its wait).
    var pullWait: Int {
        failures[.pull, default: 0] > 0 ? 0 : longPollSeconds
    }

    mutating func roundSucceeded(_ loop: Loop) -> SuccessAction {
        let failed = failures[loop, default: 0] > 0
        failures[loop] = 0
        return failed ? .reportRecovered : .proceed
    }

    /// `jitter` (0 to 1, random in the client) lengthens the wait after a 429 by up to half,
    /// so that the clients one server refused at once do not all come back at once.
    mutating func failed(_ loop: Loop, _ failure: Failure, cancelled: Bool, jitter: Double = 0) -> FailureAction {
        if cancelled || !running { return .finish }
        if failure == .unauthorized {
            // The backoff starts over once the token is accepted again.
            failures[loop] = 0
            let announce = !tokenRefused
            tokenRefused = true
            return .waitForRetryNow(announce: announce)
        }
        let count = failures[loop, default: 0] + 1
        failures[loop] = count
        let delay = retry.delay(afterFailures: count)
        let backoff = loop == .pull ? min(delay, pullRetryCap) : delay
        guard case .overLimit(let retryAfter) = failure else { return .retry(after: backoff) }
        // What the server asked for, within ``retryAfterRange``; without it, the usual backoff.
        let base = retryAfter.map { min(max($0, Self.retryAfterRange.lowerBound), Self.retryAfterRange.upperBound) } ?? backoff
        return .backOff(after: base + base * (min(max(jitter, 0), 1) / 2))
    }

    /// Whether a loop waiting after a refused token keeps waiting.
    func keepsWaitingForToken(cancelled: Bool) -> Bool {
        tokenRefused && running && !cancelled
    }

    /// The bounds of a 429's `Retry-After` wait, before jitter, and the only ones: at least a
    /// second (a "Retry-After: 0" must not make a tight loop), at most an hour (a server asking
    /// for days, by mistake or by a date far ahead, is asked again after an hour).
    static let retryAfterRange: ClosedRange<Duration> = .seconds(1) ... .seconds(3600)

    /// ``SyncClient/retryNow()``: a refused token is tried again.
    mutating func retryNow() {
        tokenRefused = false
    }
}
