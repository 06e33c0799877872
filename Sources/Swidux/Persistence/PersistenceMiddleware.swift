import Logging

/// The debounced persistence orchestrator: after each reduce it drains the change
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
/// - Writers flush sequentially **in registration order** (see `writers` for the order to
///   choose). Writers sharing a ``TransactionalWriteBackend`` are applied in one atomic transaction.
/// - **Flushes never overlap**: changes made while a flush is in flight are written by the
///   next flush, after it, so an old value never lands last.
/// - The window opens at the first change and is not extended by later ones, so continuous
///   editing still flushes every `debounce`: a crash loses at most one window.
/// - A writer that throws loses nothing: its batch (and those of the writers after it) is
///   kept under newer changes and retried with backoff (``RetryPolicy``); the failure is
///   logged, passed to ``onError`` and yielded on ``errors``; ``flush()`` rethrows it.
/// - **Delete wins over a stale update**: after a flush, entities the backend reported gone
///   (``WriteResult/vanished``: another writer deleted them) are removed from the store's
///   state without being written back or becoming an undo step; a newer pending update of
///   such an entity is dropped, a newer pending insertion is kept. Then ``onVanished`` is called.
/// - **A write that can never succeed does not hold back the others**: a write the backend
///   set aside (``WriteResult/orphaned``: a row it references was deleted by another writer)
///   leaves the store like a vanished entity, with any newer pending write of it, and is
///   reported to ``onVanished`` (reason `.orphaned`); the rest of the flush was saved.
/// - **Releasing the store loses nothing silently**: changes still pending when the middleware
///   is released (with its store), including those waiting for a retry, are written by a
///   final flush that outlives it; if that flush fails, the loss is logged (error) and passed
///   to ``onError``. A process that exits does not wait for it, and it is not ordered with the
///   flushes of a store opened later on the same backend: call ``flush()`` first (see the
///   Persistence article: background, SIGTERM).
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
    @exclusivity(unchecked) public var loopWarningThreshold: Int = 10_000

    /// Called on the main actor after a flush that found entities gone from the backend
    /// (another writer deleted them; see ``WriteResult/vanished``), once per writer. The
    /// store has already removed them from its state, without writing back (an entity the
    /// store inserted again since stays, and its insertion is written by the next flush).
    /// With a hand-written store that calls ``afterReduce(state:)`` itself, they leave the
    /// state at its next ``afterReduce(state:)`` call.
    ///
    /// ```swift
    /// persistence.onVanished = { vanished in
    ///     print("\(vanished.ids.count) items were deleted elsewhere")
    /// }
    /// ```
    public var onVanished: (@MainActor (VanishedEntities) -> Void)?

    /// Installed by the ``Store`` that owns this middleware: applies an edit to its live
    /// state without recording it (no drain, no undo step) and notifies its observers.
    /// Without one (a hand-written store calling ``afterReduce(state:)``), edits wait for
    /// the next ``afterReduce(state:)``.
    var liveStateEditor: (@MainActor (_ edit: (inout State) -> Void) -> Void)?
    private var deferredEdits: [(inout State) -> Void] = [] {
        didSet { hasDeferredEdits = !deferredEdits.isEmpty }
    }
    /// `!deferredEdits.isEmpty`, checked after every reduce without touching the generic array.
    @exclusivity(unchecked) private var hasDeferredEdits = false
    /// Drains every writer (built once: iterating the generic array of writers after every
    /// reduce would look its metadata up each time).
    private let drainWriters: (inout State) -> Bool   // nonisolated: no executor check per reduce (see StateWriter.drainState)

    /// Every failed flush attempt, as a stream (for UI banners or tests).
    public let errors: AsyncStream<PersistenceWriteFailure>
    private let errorsContinuation: AsyncStream<PersistenceWriteFailure>.Continuation

    private let clock: any Clock<Duration>
    /// The clock of the window and the retries (`TestStore.closePersistenceWindow()`).
    @_spi(Testing) public var clockForTesting: any Clock<Duration> { clock }
    private var windowTask: Task<Void, Never>?
    private var flushInFlight: Task<PersistenceWriteFailure?, Never>?
    private var consecutiveFailures = 0
    /// Counted after every reduce that changed persisted state: unchecked, a modify access of
    /// a class property otherwise pays a run-time exclusivity check each time (never
    /// overlapping: every access is a plain read or `+= 1` on the main actor).
    @exclusivity(unchecked) private var changesInWindow = 0
    private var warnedThisWindow = false

    /// Number of completed (successful) flushes, for diagnostics and tests.
    public private(set) var flushCount = 0

    /// A middleware that persists the entity stores its `writers` watch, batched over
    /// `debounce`, retrying failed flushes with `retry`.
    ///
    /// - Parameters:
    ///   - writers: in flush order. Writers on a ``TransactionalWriteBackend`` (`SwiduxSQLite`)
    ///     share one transaction with deferred foreign keys: register referencing stores
    ///     first. Writers that commit on their own: an entity referenced by others first.
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
        if writers.count == 1 {
            self.drainWriters = writers[0].drainState
        } else {
            let drains = writers.map(\.drainState)
            self.drainWriters = { state in
                var drained = false
                for drain in drains where drain(&state) { drained = true }
                return drained
            }
        }
        self.debounce = debounce
        self.clock = clock
        self.logger = logger
        self.retryPolicy = retry
        (errors, errorsContinuation) = AsyncStream.makeStream(bufferingPolicy: .bufferingNewest(100))
    }

    deinit {
        windowTask?.cancel()
        // Nothing is in flight here (a flush keeps the middleware alive until it ends), but
        // changes may be pending, some waiting for a retry: a final flush writes them, and
        // reports them if it fails. It holds the writers (and their pending batches) itself.
        let writers = self.writers
        let logger = self.logger
        let onError = self.onError
        let onVanished = self.onVanished
        let errors = errorsContinuation
        Task { @MainActor in
            await Self.finalFlush(writers: writers, logger: logger, onError: onError, onVanished: onVanished, errors: errors)
            errors.finish()
        }
    }

    /// The flush of a released middleware: one attempt; a failure is logged and reported.
    private static func finalFlush(
        writers: [StateWriter<State>], logger: Logger,
        onError: (@MainActor (PersistenceWriteFailure) -> Void)?,
        onVanished: (@MainActor (VanishedEntities) -> Void)?,
        errors: AsyncStream<PersistenceWriteFailure>.Continuation
    ) async {
        guard writers.contains(where: { $0.hasPendingWrites }) else { return }
        let taken = writers.map { ($0, $0.box.takePending()) }
        let outcome = await perform(taken)
        for (index, result) in outcome.results {
            if let vanished = taken[index].0.box.complete(result) {
                for report in vanished.reports(writer: taken[index].0.name) {
                    logger.log(level: report.reason == .orphaned ? .error : .info, "Swidux persistence: \(report)")
                    onVanished?(report)
                }
            }
        }
        guard let failure = outcome.failure else {
            logger.debug("Swidux persistence: final flush of a released store wrote \(taken.reduce(0) { $0 + $1.1.count }) changes")
            return
        }
        for index in failure.unwritten { taken[index].0.box.restorePending(taken[index].1) }
        let lost = failure.unwritten.reduce(0) { $0 + taken[$1].0.box.pendingChangeCount }
        let reported = PersistenceWriteFailure(
            writer: failure.writers, underlying: failure.error, attempt: 1, pendingCount: lost)
        logger.error("Swidux persistence: the store was released with pending changes and its final flush failed: \(lost) changes of \(failure.writers) were not written: \(failure.error)")
        onError?(reported)
        errors.yield(reported)
    }

    /// `true` when changes are waiting to be written.
    public var hasPendingWrites: Bool { writers.contains { $0.hasPendingWrites } }

    /// `true` while a flush is running.
    public var isFlushing: Bool { flushInFlight != nil }

    /// Drains every writer's entity store change log; call after every reducer invocation
    /// (the ``Store`` does it for you).
    public func afterReduce(state: inout State) {
        if hasDeferredEdits {
            for edit in deferredEdits { edit(&state) }
            deferredEdits.removeAll()
        }
        guard drainWriters(&state) else { return }
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
        // Flushes never overlap: wait for the one in flight, then write what is newer. The
        // task in flight settles its outcome and clears `flushInFlight` before it ends, so
        // every waiter wakes to a settled state.
        while let inFlight = flushInFlight {
            _ = await inFlight.value
        }
        changesInWindow = 0
        warnedThisWindow = false
        guard hasPendingWrites else { return }
        let taken = writers.map { ($0, $0.box.takePending()) }
        let task = Task { @MainActor in
            let outcome = await Self.perform(taken)
            let failure = self.settle(taken, outcome)
            self.flushInFlight = nil
            return failure
        }
        flushInFlight = task
        if let failure = await task.value { throw failure }
    }

    /// Applies a flush's outcome: written batches complete (vanished entities leave the
    /// state), unwritten ones go back under newer changes; a failure is counted, reported
    /// and a retry scheduled. Returns the reported failure.
    private func settle(_ taken: [(StateWriter<State>, PendingFlush)], _ outcome: FlushOutcome) -> PersistenceWriteFailure? {
        // Steps written before a failure are done: settle them first.
        var vanished: [(writer: String, VanishedInWriter<State>)] = []
        for (index, result) in outcome.results {
            if let found = taken[index].0.box.complete(result) { vanished.append((taken[index].0.name, found)) }
        }
        if let failure = outcome.failure {
            for index in failure.unwritten { taken[index].0.box.restorePending(taken[index].1) }
        }
        if !vanished.isEmpty { forgetVanished(vanished) }
        guard let failure = outcome.failure else {
            consecutiveFailures = 0
            flushCount += 1
            logger.debug("Swidux persistence: flushed \(taken.reduce(0) { $0 + $1.1.count }) changes")
            return nil
        }
        consecutiveFailures += 1
        // Everything kept for retry: the failed batches merged with newer changes.
        let kept = failure.unwritten.reduce(0) { $0 + taken[$1].0.box.pendingChangeCount }
        let reported = PersistenceWriteFailure(
            writer: failure.writers, underlying: failure.error,
            attempt: consecutiveFailures, pendingCount: kept)
        logger.error("\(reported)")
        onError?(reported)
        errorsContinuation.yield(reported)
        scheduleWindow(after: retryPolicy.delay(forAttempt: consecutiveFailures))
        return reported
    }

    /// Takes entities another writer deleted out of the live state, unrecorded, then reports them.
    private func forgetVanished(_ vanished: [(writer: String, VanishedInWriter<State>)]) {
        let edit: (inout State) -> Void = { state in
            for (_, found) in vanished { found.remove(&state) }
        }
        if let liveStateEditor {
            liveStateEditor(edit)
        } else {
            deferredEdits.append(edit)
        }
        for (writer, found) in vanished {
            for report in found.reports(writer: writer) {
                logger.log(level: report.reason == .orphaned ? .error : .info, "Swidux persistence: \(report)")
                onVanished?(report)
            }
        }
    }

    /// What running a flush's batches gave: each written batch's result (by index in the
    /// taken list) and, if a step failed, the error and every batch left unwritten.
    struct FlushOutcome: @unchecked Sendable {
        var results: [(index: Int, result: any Sendable)] = []
        var failure: (error: any Error, writers: String, unwritten: [Int])?
    }

    /// Runs the taken batches in registration order, stopping at the first failing step.
    private static func perform(_ taken: [(StateWriter<State>, PendingFlush)]) async -> FlushOutcome {
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
        var outcome = FlushOutcome()
        // Batches with nothing to write are done at once.
        for (index, (_, flush)) in taken.enumerated() where flush.isEmpty {
            outcome.results.append((index, WriteResult<Int>.none))
        }
        for (stepIndex, step) in steps.enumerated() {
            do {
                switch taken[step[0]].1.run {
                case .direct(let write):
                    outcome.results.append((step[0], try await write()))
                case .atomic(let group, _):
                    let operations = step.compactMap { index -> (@Sendable (Any) throws -> any Sendable)? in
                        if case .atomic(_, let op) = taken[index].1.run { return op }
                        return nil
                    }
                    let results = try await group.perform(operations)
                    for (offset, index) in step.enumerated() { outcome.results.append((index, results[offset])) }
                }
            } catch {
                let writerNames = step.map { taken[$0].0.name }.joined(separator: ", ")
                outcome.failure = (error, writerNames, steps[stepIndex...].flatMap { $0 })
                return outcome
            }
        }
        return outcome
    }
}

/// Entities a flush expected in the backend and found deleted by another writer, or whose
/// writes it set aside because a row they reference was deleted (see `reason`).
///
/// ```swift
/// persistence.onVanished = { report in
///     if report.reason == .orphaned { print("not saved, their parent is gone: \(report.ids)") }
/// }
/// ```
public struct VanishedEntities: Sendable, CustomStringConvertible {
    /// Why the entities left the store.
    public enum Reason: Sendable, Equatable {
        /// Another writer deleted them (``WriteResult/vanished``).
        case deletedElsewhere
        /// Their writes could never succeed — a row they reference (foreign key) is gone —
        /// and were set aside (``WriteResult/orphaned``); the store dropped them, as a
        /// cascade would have. The rest of the flush was saved.
        case orphaned
    }

    /// The writer's name (its key path).
    public let writer: String
    /// The ids, of the writer's entity id type.
    public let ids: [any Hashable & Sendable]
    /// Why they left the store.
    public let reason: Reason

    /// Creates a report.
    public init(writer: String, ids: [any Hashable & Sendable], reason: Reason = .deletedElsewhere) {
        self.writer = writer
        self.ids = ids
        self.reason = reason
    }

    /// "2 entities of \\AppState.items were deleted by another writer: […]", or for
    /// orphans "… were not saved: a row they reference was deleted by another writer: […]".
    public var description: String {
        switch reason {
        case .deletedElsewhere:
            "\(ids.count) entities of \(writer) were deleted by another writer: \(ids.map { "\($0)" })"
        case .orphaned:
            "\(ids.count) entities of \(writer) were not saved and left the store: a row they reference was deleted by another writer: \(ids.map { "\($0)" })"
        }
    }
}

extension VanishedInWriter {
    /// The reports to make: vanished ids, then orphaned ones (none if empty).
    func reports(writer: String) -> [VanishedEntities] {
        var reports: [VanishedEntities] = []
        if !ids.isEmpty { reports.append(VanishedEntities(writer: writer, ids: ids)) }
        if !orphaned.isEmpty { reports.append(VanishedEntities(writer: writer, ids: orphaned, reason: .orphaned)) }
        return reports
    }
}
