import Logging

/// The debounced persistence orchestrator (seed 002): after each reduce it drains the change
/// logs of the state's ``EntityStore``s into its ``StateWriter``s; when the debounce window
/// closes, it flushes all pending writes in one batch.
///
/// ```swift
/// let persistence = PersistenceMiddleware<AppState>(
///     writers: [
///         StateWriter(keyPath: \.tags) { writes, deletions in try await tagDB.save(writes, deleting: deletions) },
///         StateWriter(keyPath: \.items) { writes, deletions in try await itemDB.save(writes, deleting: deletions) },
///     ],
///     debounce: .milliseconds(250)
/// )
/// let store = Store(initialState: state, reducer: AppReducer(), environment: env, persistence: persistence)
/// ```
///
/// Guarantees:
/// - Writers flush sequentially **in registration order** (leaves first, aggregates last).
///   Writers sharing a ``TransactionalWriteBackend`` are applied in one atomic transaction.
/// - **Flushes never overlap**: changes made while a flush is in flight are written by the
///   next flush, after it, so an old value never lands last.
/// - The window opens at the first change and is not extended by later ones, so continuous
///   editing still flushes every `debounce`: a crash loses at most one window.
/// - A writer that throws loses nothing: its batch (and those of the writers after it) is
///   kept under newer changes and retried with backoff (``RetryPolicy``); the failure is
///   logged, passed to ``onError`` and yielded on ``errors``; ``flush()`` rethrows it.
@MainActor
public final class PersistenceMiddleware<State> {
    /// The writers, in flush order.
    public let writers: [StateWriter<State>]
    /// How long changes accumulate before a flush.
    public let debounce: Duration
    /// When failed flushes are retried.
    public var retryPolicy: RetryPolicy
    /// Logs flushes (debug), failures (error) and dispatch-loop warnings (warning).
    public var logger: Logger
    /// Called on the main actor for every failed flush attempt.
    public var onError: (@MainActor (PersistenceWriteFailure) -> Void)?
    /// Reducer calls that changed persisted state within one debounce window above which a
    /// dispatch-loop warning is logged.
    public var loopWarningThreshold: Int = 10_000

    /// Called on the main actor after a flush that found entities gone from the backend
    /// (another writer deleted them; see ``WriteResult/vanished``). The store has already
    /// removed them from its state, without writing back.
    public var onVanished: (@MainActor (VanishedEntities) -> Void)?

    /// Every failed flush attempt, as a stream (for UI banners or tests).
    public let errors: AsyncStream<PersistenceWriteFailure>
    private let errorsContinuation: AsyncStream<PersistenceWriteFailure>.Continuation

    private let clock: any Clock<Duration>
    private var windowTask: Task<Void, Never>?
    private var flushInFlight: Task<Void, any Error>?
    private var consecutiveFailures = 0
    private var changesInWindow = 0
    private var warnedThisWindow = false

    /// Number of completed (successful) flushes, for diagnostics and tests.
    public private(set) var flushCount = 0

    /// - Parameters:
    ///   - writers: in flush order: leaves first (an entity referenced by others flushes before them).
    ///   - debounce: the batching window (default 250 ms).
    ///   - clock: the clock that times the window and the retries (inject a test clock in tests).
    ///   - logger: swift-log logger.
    ///   - retry: backoff for failed flushes.
    public init(
        writers: [StateWriter<State>],
        debounce: Duration = .milliseconds(250),
        clock: any Clock<Duration> = ContinuousClock(),
        logger: Logger = Logger(label: "swidux.persistence"),
        retry: RetryPolicy = .default
    ) {
        self.writers = writers
        self.debounce = debounce
        self.clock = clock
        self.logger = logger
        self.retryPolicy = retry
        (errors, errorsContinuation) = AsyncStream.makeStream(bufferingPolicy: .bufferingNewest(100))
    }

    deinit {
        windowTask?.cancel()
        errorsContinuation.finish()
    }

    /// `true` when changes are waiting to be written.
    public var hasPendingWrites: Bool { writers.contains { $0.hasPendingWrites } }

    /// `true` while a flush is running.
    public var isFlushing: Bool { flushInFlight != nil }

    /// Drains every writer's entity store change log; call after every reducer invocation
    /// (the ``Store`` does it for you).
    public func afterReduce(state: inout State) {
        var drained = false
        for writer in writers where writer.box.drain(&state) { drained = true }
        guard drained else { return }
        changesInWindow += 1
        if changesInWindow > loopWarningThreshold, !warnedThisWindow {
            warnedThisWindow = true
            logger.warning("Swidux persistence: \(changesInWindow) reducer calls changed persisted state within one \(debounce) window: possible dispatch loop")
        }
        scheduleWindow(after: debounce)
    }

    /// Writes everything pending now, and returns when it is written (after any flush
    /// already in flight). Throws the failure if a writer fails; the changes stay pending
    /// and are retried.
    public func flush() async throws {
        windowTask?.cancel()
        windowTask = nil
        try await flushNow()
    }

    /// Replaces, in `next` (an undo/redo snapshot), each persisted entity store by the
    /// current one restored from the snapshot, so that exactly the differences are recorded.
    public func prepareRestore(_ next: inout State, current: State) {
        for writer in writers { writer.box.restore(&next, current: current) }
    }

    /// Timers (windows and retry waits) started so far; tests wait for their sleeps.
    private(set) var timersScheduled = 0

    private func scheduleWindow(after delay: Duration) {
        guard windowTask == nil else { return }
        timersScheduled += 1
        // Fixed now: the window closes `delay` after the change, however late the task starts.
        let deadline = Deadline(after: delay, on: clock)
        windowTask = Task { [weak self] in
            do {
                try await deadline.sleep()
            } catch {
                return  // cancelled: an explicit flush took over
            }
            guard let self else { return }
            self.windowTask = nil
            do {
                try await self.flushNow()
            } catch {
                // Already reported and rescheduled by flushNow.
            }
        }
    }

    private func flushNow() async throws {
        // Flushes never overlap: wait for the one in flight, then write what is newer.
        while let inFlight = flushInFlight {
            _ = await inFlight.result
        }
        changesInWindow = 0
        warnedThisWindow = false
        guard hasPendingWrites else { return }
        let taken = writers.map { ($0, $0.box.takePending()) }
        let task = Task { @MainActor in try await Self.perform(taken) }
        flushInFlight = task
        let result = await task.result
        flushInFlight = nil
        switch result {
        case .success:
            consecutiveFailures = 0
            flushCount += 1
            logger.debug("Swidux persistence: flushed \(taken.reduce(0) { $0 + $1.1.count }) changes")
        case .failure(let error):
            consecutiveFailures += 1
            let failure = error as? PersistenceWriteFailure ?? PersistenceWriteFailure(
                writer: "?", underlying: error, attempt: consecutiveFailures, pendingCount: 0)
            let reported = PersistenceWriteFailure(
                writer: failure.writer, underlying: failure.underlying,
                attempt: consecutiveFailures, pendingCount: failure.pendingCount)
            logger.error("\(reported)")
            onError?(reported)
            errorsContinuation.yield(reported)
            scheduleWindow(after: retryPolicy.delay(forAttempt: consecutiveFailures))
            throw reported
        }
    }

    /// Runs the taken batches in registration order; on failure, gives back the failed
    /// step's batch and every later one, and throws ``PersistenceWriteFailure``.
    private static func perform(_ taken: [(StateWriter<State>, PendingFlush)]) async throws {
        // Build steps: direct writers alone; writers on one transactional backend together,
        // at the position of the first of them.
        var steps: [[Int]] = []
        var groupStep: [ObjectIdentifier: Int] = [:]
        for (index, (_, flush)) in taken.enumerated() where !flush.isEmpty {
            switch flush.run {
            case .direct:
                steps.append([index])
            case .atomic(let group, _):
                if let step = groupStep[group.id] {
                    steps[step].append(index)
                } else {
                    groupStep[group.id] = steps.count
                    steps.append([index])
                }
            }
        }
        for (stepIndex, step) in steps.enumerated() {
            do {
                switch taken[step[0]].1.run {
                case .direct(let write):
                    try await write()
                case .atomic(let group, _):
                    let operations = step.compactMap { index -> (@Sendable (Any) throws -> Void)? in
                        if case .atomic(_, let op) = taken[index].1.run { return op }
                        return nil
                    }
                    try await group.perform(operations)
                }
            } catch {
                let unwritten = steps[stepIndex...].flatMap { $0 }
                for index in unwritten { taken[index].0.box.restorePending(taken[index].1) }
                let writerNames = step.map { taken[$0].0.name }.joined(separator: ", ")
                let pending = step.reduce(0) { $0 + taken[$1].1.count }
                throw PersistenceWriteFailure(writer: writerNames, underlying: error, attempt: 0, pendingCount: pending)
            }
        }
    }
}

/// Entities a flush expected in the backend and found deleted by another writer.
public struct VanishedEntities: Sendable, CustomStringConvertible {
    /// The writer's name (its key path).
    public let writer: String
    /// The ids, of the writer's entity id type.
    public let ids: [any Hashable & Sendable]

    /// Creates a report.
    public init(writer: String, ids: [any Hashable & Sendable]) {
        self.writer = writer
        self.ids = ids
    }

    /// "2 entities of \\AppState.items were deleted by another writer: […]".
    public var description: String {
        "\(ids.count) entities of \(writer) were deleted by another writer: \(ids.map { "\($0)" })"
    }
}
