/// Replays a recorded session into a ``Store``, step by step, and compares each step's
/// state fingerprint with the recording's.
///
/// ```swift
/// let recording = try SessionRecording<AppAction>(contentsOf: url)
/// let store = Store(initialState: AppState(), reducer: AppReducer().ignoringEffects(),
///                   environment: AppEnvironment(now: values.now, uuid: values.uuid))
/// let replayer = try SessionReplayer(recording: recording, store: store,
///                                    fingerprint: AppState.sessionFingerprint, values: values)
/// while let step = try replayer.next() {
///     if !step.matches { print("diverged at step \(step.step.index): \(step.differingParts)") }
/// }
/// ```
///
/// Give the store a reducer that runs no effect (``SwiduxReducer/ignoringEffects()``): the
/// actions effects sent are in the recording and are replayed in their place. Undo and redo
/// steps call ``Store/undo()`` and ``Store/redo()`` (create the store with the app's
/// `undo:`); external changes are applied as recorded (new entities at the end of their
/// store). A recording with a snapshot (``SessionRecorder`` `snapshot: true`) first sets the
/// store's fingerprinted parts to the values it recorded at the start; an undo or a redo of
/// a step made before the file started (the replay's history does not hold it) applies what
/// the recording says it did (``SessionRecording/Step/changes``).
@MainActor
public final class SessionReplayer<State, Action: Decodable> {
    /// The recording being replayed.
    public let recording: SessionRecording<Action>
    private let store: Store<State, Action>
    private let fingerprint: StateFingerprint<State>
    private let fingerprinter: StateFingerprinter<State>
    private let values: SessionValues?
    private var position = 0
    /// The recorded history's undo and redo steps as far as the replay has seen them (top
    /// last): `true` for a step the replay's store holds, `false` for one it lacks (made
    /// before the recording's file started, or undone or redone from the recorded changes).
    /// Below the seen ones, the recorded history holds only steps the replay lacks.
    private var undoSteps: [Bool] = []
    private var redoSteps: [Bool] = []
    /// The parts whose fingerprint differs from the recording's before the first step (the
    /// replay starts from another state than the recording); empty when they agree or the
    /// recording did not see its start.
    public private(set) var initialDifferences: [String] = []

    /// Prepares the replay of `recording` into `store`.
    ///
    /// - Throws: ``SessionRecordingError`` when the recording fingerprints other parts than
    ///   `fingerprint` names.
    public init(
        recording: SessionRecording<Action>, store: Store<State, Action>,
        fingerprint: StateFingerprint<State>, values: SessionValues? = nil
    ) throws {
        guard recording.parts == fingerprint.partNames else {
            throw SessionRecordingError(
                path: "recording", line: 1,
                reason: "fingerprints the parts \(recording.parts), the replay \(fingerprint.partNames)")
        }
        self.recording = recording
        self.store = store
        self.fingerprint = fingerprint
        self.fingerprinter = StateFingerprinter(fingerprint)
        self.values = values
        values?.useSeed(recording.seed)
        if let snapshot = recording.initialSnapshot {
            var failure: (any Error)?
            store.applyReplayedEdit { state in
                do { try fingerprint.applyExternal(snapshot, to: &state) } catch { failure = error }
            }
            if let failure { throw failure }
        }
        let start = try fingerprinter.fingerprint(of: store.state)
        if let recorded = recording.initialFingerprint {
            initialDifferences = Self.differences(recorded, start, parts: recording.parts)
        }
    }

    /// The steps replayed so far.
    public var replayedCount: Int { position }

    /// Replays the next step; `nil` at the end of the recording.
    ///
    /// - Throws: an error applying recorded external changes (an entity that does not decode).
    public func next() throws -> ReplayedStep<State, Action>? {
        guard position < recording.steps.count else { return nil }
        let step = recording.steps[position]
        position += 1
        let before = store.state
        switch step.event {
        case .action(let action):
            let history = store.historyDepth
            values?.beginStep(step.index, milliseconds: step.milliseconds)
            store.send(action)
            values?.endStep()
            // A new undo step (merged ones not counted): the recorded history made the same.
            if store.historyDepth.recorded != history.recorded {
                undoSteps.append(true)
                redoSteps.removeAll()
            }
        case .undo:
            try moveInHistory(undo: true, recorded: step.changes)
        case .redo:
            try moveInHistory(undo: false, recorded: step.changes)
        case .external(_, let changes):
            var failure: (any Error)?
            store.applyReplayedEdit { state in
                do { try fingerprint.applyExternal(changes, to: &state) } catch { failure = error }
            }
            if let failure { throw failure }
        }
        let after = store.state
        let replayed = try fingerprinter.fingerprint(of: after)
        return ReplayedStep(
            step: step, before: before, after: after,
            differingParts: Self.differences(step.fingerprint, replayed, parts: recording.parts))
    }

    /// Undoes or redoes through the store when its history holds the step the recording
    /// moved over; else applies the `recorded` changes (when the recording has them).
    private func moveInHistory(undo: Bool, recorded: [String: String]?) throws {
        let depth = store.historyDepth
        let held = (undo ? undoSteps.last : redoSteps.last) == true && (undo ? depth.undo : depth.redo) > 0
        let replayed: Bool
        if let recorded, !held {
            var failure: (any Error)?
            store.applyReplayedEdit { state in
                do { try fingerprint.applyExternal(recorded, to: &state) } catch { failure = error }
            }
            if let failure { throw failure }
            replayed = false
        } else {
            if undo { store.undo() } else { store.redo() }
            replayed = true
        }
        if undo {
            _ = undoSteps.popLast()
            redoSteps.append(replayed)
        } else {
            _ = redoSteps.popLast()
            undoSteps.append(replayed)
        }
    }

    private static func differences(_ recorded: [String], _ replayed: [String], parts: [String]) -> [String] {
        guard recorded.count == replayed.count else { return parts }
        return parts.indices.filter { recorded[$0] != replayed[$0] }.map { parts[$0] }
    }
}

/// One step a ``SessionReplayer`` replayed.
public struct ReplayedStep<State, Action: Decodable> {
    /// The recorded step.
    public var step: SessionRecording<Action>.Step
    /// The state before it, in the replay.
    public var before: State
    /// The state after it, in the replay.
    public var after: State
    /// The parts whose fingerprint after the step differs from the recording's.
    public var differingParts: [String]
    /// `true` when the replay's state after the step has the recorded fingerprint.
    public var matches: Bool { differingParts.isEmpty }
}

/// A reducer that runs `base` and drops the effects it returns (see
/// ``SwiduxReducer/ignoringEffects()``).
public struct EffectlessReducer<Base: SwiduxReducer>: SwiduxReducer {
    let base: Base

    /// Runs the base reducer and returns no effect.
    public func reduce(state: inout Base.State, action: Base.Action, environment: Base.Environment) -> Effect<Base.RootAction>? {
        _ = base.reduce(state: &state, action: action, environment: environment)
        return nil
    }
}

extension SwiduxReducer {
    /// This reducer with its effects dropped: for replaying a recording, whose effect
    /// actions are replayed from the recording instead.
    ///
    /// ```swift
    /// Store(initialState: AppState(), reducer: AppReducer().ignoringEffects(), environment: env)
    /// ```
    public func ignoringEffects() -> EffectlessReducer<Self> { EffectlessReducer(base: self) }
}
