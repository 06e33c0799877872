import CustomDump
import Foundation
import Swidux

extension TestStore where Action: Decodable {
    /// Replays a recorded session (`SessionRecorder`) and fails the test at the first step
    /// whose state fingerprint differs from the recording's, printing the step, its action,
    /// the parts that differ and the state change the replay made at that step.
    ///
    /// ```swift
    /// @MainActor @Test func bugReport1234() async throws {
    ///     try await TestStore(replaying: Bundle.module.url(forResource: "bug-1234", withExtension: "jsonl")!,
    ///                         initialState: AppState(), reducer: AppReducer(), environment: .replay)
    /// }
    /// ```
    ///
    /// Effects are not run: the actions they sent are in the recording and are sent in their
    /// place, in the recorded order. Undo and redo steps call `undo()` / `redo()` (pass the
    /// app's `undo:`); external changes are applied as recorded. Put the recording's
    /// `SessionValues` in the environment (`values:`) when the reducer reads the time or
    /// makes ids. The replay stops at the first difference; the test store then holds the
    /// state after that step. ``replayedSteps`` tells how many steps ran. A recording whose
    /// last line a crash cut short replays its complete steps; the cut line is reported as a
    /// warning (file and line) and kept in ``replayWarnings``.
    ///
    /// - Throws: `SessionRecordingError` when the file cannot be read or does not decode.
    public convenience init<R: SwiduxReducer>(
        replaying url: URL,
        initialState: State,
        reducer: R,
        environment: R.Environment,
        fingerprint: StateFingerprint<State>,
        values: SessionValues? = nil,
        undo: UndoMiddleware<State>? = nil,
        fileID: StaticString = #fileID,
        filePath: StaticString = #filePath,
        line: UInt = #line,
        column: UInt = #column
    ) async throws where R.State == State, R.Action == Action, R.RootAction == Action {
        let recording = try SessionRecording<Action>(contentsOf: url)
        self.init(
            initialState: initialState, reducer: reducer.ignoringEffects(), environment: environment, undo: undo,
            fileID: fileID, filePath: filePath, line: line, column: column)
        let site = CallSite(fileID: fileID, filePath: filePath, line: line, column: column)
        let replayer = try SessionReplayer(recording: recording, store: store, fingerprint: fingerprint, values: values)
        replayWarnings = recording.warnings.map(\.description)
        for warning in replayWarnings { site.warn(warning) }
        if !replayer.initialDifferences.isEmpty {
            site.report("""
            The recording \(url.lastPathComponent) starts from another state than `initialState`: \
            the parts \(replayer.initialDifferences.joined(separator: ", ")) differ.
            """)
        } else {
            while let replayed = try replayer.next() {
                replayedSteps += 1
                if !replayed.matches {
                    site.report(Self.divergence(replayed, file: url.lastPathComponent))
                    break
                }
            }
        }
        skipReceived()
        needsCompletionCheck = false
    }

    /// ``init(replaying:initialState:reducer:environment:fingerprint:values:undo:fileID:filePath:line:column:)``
    /// for a state that names its fingerprint (`SessionFingerprinted`).
    ///
    /// ```swift
    /// try await TestStore(replaying: url, initialState: AppState(), reducer: AppReducer(), environment: env)
    /// ```
    public convenience init<R: SwiduxReducer>(
        replaying url: URL,
        initialState: State,
        reducer: R,
        environment: R.Environment,
        values: SessionValues? = nil,
        undo: UndoMiddleware<State>? = nil,
        fileID: StaticString = #fileID,
        filePath: StaticString = #filePath,
        line: UInt = #line,
        column: UInt = #column
    ) async throws where R.State == State, R.Action == Action, R.RootAction == Action, State: SessionFingerprinted {
        try await self.init(
            replaying: url, initialState: initialState, reducer: reducer, environment: environment,
            fingerprint: State.sessionFingerprint, values: values, undo: undo,
            fileID: fileID, filePath: filePath, line: line, column: column)
    }

    /// The failure message of a step that diverged.
    static func divergence(_ replayed: ReplayedStep<State, Action>, file: String) -> String {
        let step = replayed.step
        let event: String
        switch step.event {
        case .action(let action): event = "action \(describe(action))"
        case .undo: event = "undo()"
        case .redo: event = "redo()"
        case .external(let origin, _): event = "external changes from \(origin)"
        }
        let change = diff(replayed.before, replayed.after, format: .proportional).map(indent)
            ?? "    (the replay's state did not change)"
        return """
        Replay of \(file) diverged at step \(step.index) (line \(step.line), source \(step.source.rawValue)):
            \(event)
        Parts whose fingerprint differs from the recording: \(replayed.differingParts.joined(separator: ", "))
        What this step did in the replay (−: before, +: after):

        \(change)
        """
    }
}
