import Foundation

/// A middleware that records a session: every action — sent by the UI, by effects — every
/// undo and redo, and every batch of external changes (another process, a sync engine),
/// each with its source, its time and the fingerprint of the state after it, as JSON lines.
///
/// ```swift
/// let values = SessionValues()   // time and ids the reducer reads, reproducible
/// let recorder = try SessionRecorder<AppState, AppAction>(
///     file: URL(fileURLWithPath: "session.jsonl"),
///     fingerprint: StateFingerprint<AppState>().entities(\.items).field(\.ui),
///     values: values,
///     redact: { action in
///         guard case .login(let user, _) = action else { return action }
///         return .login(user, password: "•••")       // never written
///     })
/// let store = Store(initialState: AppState(), reducer: AppReducer(),
///                   environment: AppEnvironment(now: values.now, uuid: values.uuid),
///                   middleware: [recorder])
/// // …
/// try recorder.flush()   // before exiting
/// ```
///
/// Replay a recording in a test with `TestStore(replaying:initialState:reducer:environment:)`
/// (SwiduxTesting): it fails at the first step whose fingerprint differs.
///
/// - Actions must be `Codable` (a compile-time requirement of this type): the recording
///   holds them as JSON, and a replay decodes them.
/// - Cost on the main actor: per action, finding what changed (O(changed), see
///   ``StateFingerprint``) and queueing it. Hashing, encoding and writing run off the main
///   actor, in batches (`batchDelay` after the first step of a batch).
/// - The file rotates when it would exceed `maxFileSize`: it becomes `FILE.1` (older ones
///   `FILE.2`, … up to `keptFiles`) and a new `FILE` starts with a header that holds the
///   fingerprint at that point. An existing file at `file` is rotated away in the same way:
///   nothing is overwritten. With `snapshot: true`, every file's header also holds the
///   parts' values where it starts (O(state), once per file), and every undo and redo step
///   what it changed (O(changed)), so that any one file replays alone, undo and redo of steps
///   made before it included; the file then rotates at the first step after it is full (the
///   steps queued meanwhile, at most a batch, go beyond `maxFileSize`).
/// - `redact` runs on every action before it is encoded: what it removes never reaches the
///   file. (A replay of a redacted action differs where the payload mattered.)
/// - Install it last in `middleware:` so that the state it fingerprints includes what the
///   other hooks changed.
@MainActor
public final class SessionRecorder<State, Action: Codable & Sendable>: Middleware {
    private let writer: SessionWriter<State, Action>
    private let trackers: [FingerprintCapture<State>]
    private let fingerprint: StateFingerprint<State>
    private let values: SessionValues?
    private var started = false
    private var step = 0
    private var current: (source: ActionSource, milliseconds: Int64) = (.ui, 0)

    /// Starts a recording at `file`.
    ///
    /// - Parameters:
    ///   - file: the recording (an existing file there is rotated away, not overwritten).
    ///   - fingerprint: the parts of the state fingerprinted after every step.
    ///   - values: the time and ids the reducer reads (see ``SessionValues``), set per step.
    ///   - maxFileSize: the size in bytes at which the file rotates (default 64 MiB).
    ///   - keptFiles: how many rotated files are kept (default 3).
    ///   - batchDelay: how long steps gather before a batch is written (default 200 ms).
    ///   - snapshot: write the fingerprinted parts' values at the start of every file in its
    ///     header, so that a replay of any file starts from them whatever its initial state
    ///     (O(state), once per file), and what each undo and redo changed, so that the replay
    ///     needs no history from before the file.
    ///   - redact: rewrites each action before it is written (remove secrets here).
    /// - Throws: ``SessionRecordingError`` when the file cannot be created.
    public init(
        file: URL,
        fingerprint: StateFingerprint<State>,
        values: SessionValues? = nil,
        maxFileSize: Int = 64 << 20,
        keptFiles: Int = 3,
        batchDelay: Duration = .milliseconds(200),
        snapshot: Bool = false,
        redact: (@Sendable (Action) -> Action)? = nil
    ) throws {
        self.writer = try SessionWriter(
            url: file, fingerprint: fingerprint, maxFileSize: maxFileSize, keptFiles: keptFiles,
            delay: batchDelay, seed: values?.seed ?? UInt64.random(in: 1...UInt64.max), snapshot: snapshot,
            redact: redact)
        self.trackers = fingerprint.makeCaptures()
        self.fingerprint = fingerprint
        self.values = values
    }

    /// The recording's file.
    public var file: URL { writer.url }

    /// How many values (entities, ids, fields) the writer hashed so far.
    var hashedValues: Int { writer.hashedValues }

    /// The number of steps recorded so far.
    public var stepCount: Int { step }

    /// Writes every recorded step now; returns when they are in the file.
    ///
    /// ```swift
    /// try recorder.flush()
    /// ```
    /// - Throws: the first error writing met (writing stopped there).
    public func flush() throws {
        writer.flush()
        if let error = writer.error { throw error }
    }

    /// ``flush()``, off the main actor.
    public func flush() async throws {
        let writer = writer
        await Task.detached { writer.flush() }.value
        if let error = writer.error { throw error }
    }

    // MARK: - Middleware

    /// Starts the recording at the first action (its header fingerprints the state before
    /// it) and stamps the step's time (and ``SessionValues``).
    public func beforeReduce(state: State, action: Action, source: ActionSource) {
        if !started { start(state) }
        let milliseconds = Int64((Date().timeIntervalSince1970 * 1000).rounded(.down))
        current = (source, milliseconds)
        values?.beginStep(step, milliseconds: milliseconds)
    }

    /// Records the action with what it changed.
    public func afterReduce(state: inout State, action: Action) {
        values?.endStep()
        var entry = SessionStep(source: current.source, milliseconds: current.milliseconds, action: action)
        entry.captures = capture(state)
        append(entry, state)
    }

    /// Records a batch of external changes that changed a fingerprinted part, with the
    /// entities it changed.
    public func didApplyExternalChanges(_ changes: AppliedExternalChanges, state: State) {
        // Taken in before the first action: part of the state the recording starts from.
        guard started else { return start(state) }
        var entry = SessionStep(
            kind: "external", source: ActionSource(externalOrigin: changes.origin), milliseconds: Self.now(),
            origin: changes.origin)
        entry.captures = capture(state)
        // A batch that changed no fingerprinted part (echoes, ids kept local) is no step.
        guard !entry.captures.isEmpty else { return }
        append(entry, state)
    }

    /// Records an undo or a redo.
    public func didMoveInHistory(undo: Bool, state: State) {
        guard started else { return start(state) }
        var entry = SessionStep(kind: undo ? "undo" : "redo", source: .ui, milliseconds: Self.now())
        entry.captures = capture(state)
        append(entry, state)
    }

    // MARK: - Steps

    private func start(_ state: State) {
        started = true
        var header = SessionStep(isHeader: true)
        header.captures = capture(state)
        writer.append(header)
    }

    /// Queues a step (moved, not copied: a copy retains each of its fields).
    private func append(_ entry: consuming SessionStep, _ state: State) {
        step += 1
        if writer.append(entry) {
            // The file is full (`snapshot: true`): the next one starts from this state.
            var snapshot = SessionStep()
            snapshot.isSnapshot = true
            snapshot.captures = fingerprint.captureAll(state)
            writer.append(snapshot)
        }
    }

    private func capture(_ state: State) -> [(part: Int, change: any Sendable)] {
        var captures: [(part: Int, change: any Sendable)] = []
        captures.reserveCapacity(trackers.count)
        for index in 0..<trackers.count {
            if let change = trackers[index](state) { captures.append((index, change)) }
        }
        return captures
    }

    private static func now() -> Int64 {
        Int64((Date().timeIntervalSince1970 * 1000).rounded(.down))
    }
}

