import CustomDump
import IssueReporting
@_spi(Testing) import Swidux

/// A store for tests that asserts, step by step, **every** state change, every action
/// effects feed back, and that no effect is left running.
///
/// ```swift
/// @MainActor @Test func increment() async {
///     let clock = TestClock()
///     let store = TestStore(
///         initialState: CounterState(),
///         reducer: CounterReducer(),
///         environment: CounterEnvironment(service: StubCounterService(clock: clock))
///     )
///     await store.send(.incrementTapped) { $0.isLoading = true }
///     await clock.advance(by: .seconds(1))
///     await store.receive(.incrementResponse(.success(1))) {
///         $0.count = 1
///         $0.isLoading = false
///     }
///     await store.finish()
/// }
/// ```
///
/// - ``send(_:assert:fileID:filePath:line:column:)`` reduces an action and checks the
///   state against the closure's expectation: the state as of the previous step, mutated
///   by the closure, must equal the actual state. A mismatch fails the test at the
///   caller's line with a diff (`−` expected, `+` actual).
/// - `receive(_:timeout:assert:)` waits for the next action
///   produced by an effect, checks it, and checks the state change it made.
/// - ``finish(timeout:fileID:filePath:line:column:)`` waits for effects to finish and fails
///   if some are still running or if received actions were not asserted. The same check
///   (without waiting) runs when the test store is deinitialized, so a forgotten `finish()`
///   still fails the test; mark tests `@MainActor` so that it runs inside the test.
///
/// Failures are reported with IssueReporting: they fail Swift Testing tests and XCTest
/// tests alike, and `withKnownIssue` / `XCTExpectFailure` can expect them. An error thrown
/// by an effect without a `catch` handler is a failure too.
///
/// Time: put a `TestClock` in the environment (and in `PersistenceMiddleware`) and drive
/// it with `await clock.advance(by:)`; the test store never sleeps for effects' time.
/// Only `receive(_:timeout:assert:)` and ``finish(timeout:fileID:filePath:line:column:)``
/// wait in real time, and only until the effects' actions arrive (at most ``timeout``).
@MainActor
public final class TestStore<State: Equatable, Action> {
    /// How strictly steps are checked (default ``Exhaustivity/on``).
    public var exhaustivity: Exhaustivity = .on
    /// How long `receive` and `finish` wait, in real time, for effects to deliver
    /// (default one second). Effects that wait on a `TestClock` need `advance`, not time.
    public var timeout: Duration

    let store: Store<State, Action>
    let recorder: ActionRecorder<State, Action>
    /// The persistence middleware passed to the initializer, if any.
    let persistence: PersistenceMiddleware<State>?
    private let runningEffects: @Sendable () -> Int
    /// The state as of the last asserted step: the baseline the next expectation mutates.
    var asserted: State
    /// `true` when steps ran since the last ``finish(timeout:fileID:filePath:line:column:)``.
    var needsCompletionCheck = false
    /// The recorded steps a replay ran (see `init(replaying:…)`); 0 otherwise.
    public internal(set) var replayedSteps = 0
    /// What a replay read past without failing (see `init(replaying:…)`): a last line a
    /// crash cut short, named by file and line. Each is also reported as a warning.
    public internal(set) var replayWarnings: [String] = []
    private let createdAt: CallSite

    /// Creates a test store around a `Store` running `reducer`, with the same middleware,
    /// persistence and undo as the app's store, so that each is asserted step by step.
    ///
    /// ```swift
    /// let backend = InMemoryBackend<Item>()
    /// let clock = TestClock()
    /// let store = TestStore(
    ///     initialState: AppState(),
    ///     reducer: AppReducer(),
    ///     environment: AppEnvironment(clock: clock),
    ///     middleware: [Analytics()],
    ///     persistence: PersistenceMiddleware(writers: [backend.stateWriter(for: \.items)], clock: clock),
    ///     undo: UndoMiddleware(recording: \.items)
    /// )
    /// ```
    ///
    /// - Parameters:
    ///   - initialState: the state the test starts from; every assertion is relative to it.
    ///   - reducer: the reducer under test.
    ///   - environment: its dependencies (inject test clocks and fakes here).
    ///   - middleware: hooks around every reduce, as in `Store`. A state change a hook makes
    ///     in `afterReduce` is part of the step: `send`'s expectation must include it.
    ///   - persistence: persistence middleware to run after every reduce, as in the app.
    ///   - undo: enables ``undo(assert:fileID:filePath:line:column:)`` and
    ///     ``redo(assert:fileID:filePath:line:column:)``.
    ///   - undoPolicy: classifies each action for undo (default: as `Store` does).
    ///   - timeout: the default of ``timeout``.
    ///   - fileID: where failures found when the test store is deinitialized are reported.
    ///   - filePath: the file of that report.
    ///   - line: the line of that report.
    ///   - column: the column of that report.
    public init<R: SwiduxReducer>(
        initialState: State,
        reducer: R,
        environment: R.Environment,
        middleware: [any Middleware<State, Action>] = [],
        persistence: PersistenceMiddleware<State>? = nil,
        undo: UndoMiddleware<State>? = nil,
        undoPolicy: ((Action) -> UndoPolicy)? = nil,
        timeout: Duration = .seconds(1),
        fileID: StaticString = #fileID,
        filePath: StaticString = #filePath,
        line: UInt = #line,
        column: UInt = #column
    ) where R.State == State, R.Action == Action, R.RootAction == Action {
        let recorder = ActionRecorder<State, Action>()
        self.recorder = recorder
        self.timeout = timeout
        self.persistence = persistence
        self.createdAt = CallSite(fileID: fileID, filePath: filePath, line: line, column: column)
        // The recorder runs last, so a step's state includes what the app's hooks changed.
        let store = Store(
            initialState: initialState,
            reducer: reducer,
            environment: environment,
            middleware: middleware + [RecordingMiddleware(recorder)],
            persistence: persistence,
            undo: undo,
            undoPolicy: undoPolicy,
            onUnexpectedError: { error in recorder.recordError(error) }
        )
        self.store = store
        self.runningEffects = store.runningEffectCountReader
        self.asserted = initialState
    }

    // Not an `isolated deinit`: that one clears task-local values, and the test frameworks
    // find the running test (and `withKnownIssue`) through them, so its failures would be
    // lost. This one runs where the last reference goes away: inside the test when the test
    // is `@MainActor`. It reads only thread-safe state.
    deinit {
        guard needsCompletionCheck else { return }
        Self.reportCompletion(
            exhaustivity: exhaustivity, recorder: recorder,
            runningEffects: runningEffects(), at: createdAt
        )
    }

    /// The current state of the store.
    public var state: State { store.state }

    /// Sends an action, runs the reducer and asserts the state change.
    ///
    /// The closure receives the state as of the previous step and must turn it into the
    /// state after this action (in ``Exhaustivity/off`` mode: it receives the actual state
    /// and only what it sets is checked). Without a closure, the state must not change.
    ///
    /// ```swift
    /// await store.send(.incrementTapped) { $0.isLoading = true }
    /// await store.send(.cancelTapped)                      // asserts nothing changed
    /// await store.send(.timerStarted).cancel()             // stops the effects it started
    /// ```
    ///
    /// In ``Exhaustivity/on`` mode, sending while received actions are not asserted fails.
    /// - Returns: a handle on the effects the action started, including those of its `.send`
    ///   follow-ups (`.send(.start)` → `.send(.tick)` → a timer: `cancel()` stops the timer).
    @discardableResult
    public func send(
        _ action: Action,
        assert updateStateToExpectedResult: ((_ state: inout State) throws -> Void)? = nil,
        fileID: StaticString = #fileID,
        filePath: StaticString = #filePath,
        line: UInt = #line,
        column: UInt = #column
    ) async -> StoreTask {
        let site = CallSite(fileID: fileID, filePath: filePath, line: line, column: column)
        needsCompletionCheck = true
        reportEffectErrors(at: site)
        requireReceivedAsserted(before: "sending \(describe(action))", at: site)
        recorder.expectingSend = true
        let task = store.send(action)
        recorder.expectingSend = false
        if let step = recorder.takeSent() {
            assertStateChange(after: "send(\(describe(action)))", actual: step.state, updateStateToExpectedResult, at: site)
        } else {
            site.report("The store did not reduce \(describe(action)) (dispatch loop?).")
        }
        track(task, startedBy: "send(\(describe(action)))")
        await settleEffects()
        reportEffectErrors(at: site)
        return task
    }

    /// Writes every pending persistence change now and returns when it is written
    /// (see `PersistenceMiddleware/flush()`).
    ///
    /// ```swift
    /// await store.send(.addItem(milk)) { $0.items[milk.id] = milk }
    /// try await store.flush()
    /// #expect(backend.rows == [milk])
    /// ```
    public func flush() async throws {
        try await store.flush()
    }

    /// Waits for running effects (at most `timeout`, default ``timeout``), then fails if
    /// some are still running or if received actions were not asserted. In
    /// ``Exhaustivity/off`` mode it only waits and skips the received actions.
    ///
    /// ```swift
    /// await store.send(.refresh) { $0.isLoading = true }
    /// await store.receive(.refreshResponse(items)) { ... }
    /// await store.finish()
    /// ```
    public func finish(
        timeout: Duration? = nil,
        fileID: StaticString = #fileID,
        filePath: StaticString = #filePath,
        line: UInt = #line,
        column: UInt = #column
    ) async {
        let site = CallSite(fileID: fileID, filePath: filePath, line: line, column: column)
        var budget = WaitBudget(timeout ?? self.timeout)
        var polls = 0
        while runningEffects() > 0, !budget.isSpent {
            await pause(poll: polls)
            budget.tick()
            polls += 1
        }
        needsCompletionCheck = false
        Self.reportCompletion(exhaustivity: exhaustivity, recorder: recorder, runningEffects: runningEffects(), at: site)
        skipReceived()
    }

    // MARK: - Steps

    /// Checks `actual` against the previous state mutated by `update`; the actual state
    /// becomes the baseline of the next step.
    func assertStateChange(
        after step: String,
        actual: State,
        _ update: ((inout State) throws -> Void)?,
        at site: CallSite
    ) {
        let previous = asserted
        asserted = actual
        var expected = exhaustivity == .on ? previous : actual
        if let update {
            do {
                try update(&expected)
            } catch {
                site.report(error, "The expected state after \(step) threw an error")
                return
            }
        }
        if expected != actual {
            let difference = diff(expected, actual, format: .proportional)
                ?? "(no difference in their dumps; the values differ by ==)"
            site.report("""
            State after \(step) does not match the expectation:

            \(indent(difference))

            (Expected: −, Actual: +)
            """)
        } else if exhaustivity == .on, update != nil, actual == previous {
            site.report("""
            Expected the state to change after \(step), but it did not. If no change is \
            expected, omit the trailing closure.
            """)
        }
    }

    /// In ``Exhaustivity/on`` mode, fails if received actions were not asserted before
    /// `step`; then skips them either way.
    func requireReceivedAsserted(before step: String, at site: CallSite) {
        let unasserted = recorder.received
        guard !unasserted.isEmpty else { return }
        if exhaustivity == .on {
            site.report("""
            Must handle \(count(unasserted.count, "received action")) before \(step):

            \(list(unasserted.map(\.action)))

            Assert them with `receive`, or call `skipReceivedActions()`.
            """)
        }
        skipReceived()
    }

    /// Drops the received actions; the state after the last one becomes the baseline.
    func skipReceived() {
        if let last = recorder.removeAllReceived() { asserted = last.state }
    }

    /// The end-of-test check (``finish(timeout:fileID:filePath:line:column:)`` and deinit).
    nonisolated static func reportCompletion(
        exhaustivity: Exhaustivity,
        recorder: ActionRecorder<State, Action>,
        runningEffects: Int,
        at site: CallSite
    ) {
        for error in recorder.takeErrors() {
            site.report(error, "An effect threw an error that no `catch` handler took")
        }
        guard exhaustivity == .on else { return }
        let unasserted = recorder.received
        if !unasserted.isEmpty {
            site.report("""
            The store received \(count(unasserted.count, "unexpected action")) that \
            were not asserted:

            \(list(unasserted.map(\.action)))

            Assert them with `receive`, or call `skipReceivedActions()`.
            """)
        }
        if runningEffects > 0 {
            let origins = recorder.origins
            let startedBy = origins.isEmpty ? "actions received from effects" : origins.joined(separator: ", ")
            site.report("""
            Effects are still running at the end of the test (started by \(startedBy)). \
            Receive their actions, cancel them, or advance the test clock so they finish.
            """)
        }
    }

    /// Reports, at `site`, the errors effects threw without a `catch` handler.
    func reportEffectErrors(at site: CallSite) {
        for error in recorder.takeErrors() {
            site.report(error, "An effect threw an error that no `catch` handler took")
        }
    }

    // MARK: - Effects and waiting

    /// Remembers which send started still-running effects, to name it in failures.
    private func track(_ task: StoreTask, startedBy origin: String) {
        guard !task.isCancelled else { return }  // no effect
        let recorder = recorder
        let id = recorder.addOrigin(origin)
        Task {
            await task.finish()
            recorder.removeOrigin(id)
        }
    }

    /// Gives effects that are about to complete (their last action delivered) a moment to
    /// do so, so that end-of-test checks do not see them as still running.
    func settleEffects() async {
        let start = ContinuousClock.now
        var polls = 0
        while runningEffects() > 0, ContinuousClock.now - start < .milliseconds(10) {
            await pause(poll: polls, yields: 5, sleep: .microseconds(200))
            polls += 1
        }
    }

    /// One wait in a polling loop: yields first, then sleeps a little at a time, so that
    /// other tests on the main actor run meanwhile.
    func pause(poll: Int, yields: Int = 20, sleep: Duration = .milliseconds(1)) async {
        if poll < yields {
            await Task.yield()
        } else {
            try? await Task.sleep(for: sleep)
        }
    }

    /// The number of effect tasks still running.
    var runningEffectCount: Int { runningEffects() }
}
