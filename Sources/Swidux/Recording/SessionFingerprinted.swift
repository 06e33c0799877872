import Foundation

/// A state that says once which of its parts a recording fingerprints, so that a
/// ``SessionRecorder`` and a replay (`TestStore(replaying:initialState:reducer:environment:)`)
/// need no `fingerprint:` argument.
///
/// ```swift
/// extension AppState: SessionFingerprinted {
///     static var sessionFingerprint: StateFingerprint<AppState> {
///         StateFingerprint().entities(\.items).field(\.ui)
///     }
/// }
/// let recorder = try SessionRecorder<AppState, AppAction>(file: url)
/// ```
public protocol SessionFingerprinted {
    /// The parts fingerprinted after every recorded step.
    static var sessionFingerprint: StateFingerprint<Self> { get }
}

extension SessionRecorder where State: SessionFingerprinted {
    /// Starts a recording at `file`, fingerprinting ``SessionFingerprinted/sessionFingerprint``
    /// (see ``init(file:fingerprint:values:maxFileSize:keptFiles:batchDelay:snapshot:redact:)``).
    ///
    /// ```swift
    /// let recorder = try SessionRecorder<AppState, AppAction>(file: url, values: values)
    /// ```
    public convenience init(
        file: URL,
        values: SessionValues? = nil,
        maxFileSize: Int = 64 << 20,
        keptFiles: Int = 3,
        batchDelay: Duration = .milliseconds(200),
        snapshot: Bool = false,
        redact: (@Sendable (Action) -> Action)? = nil
    ) throws {
        try self.init(
            file: file, fingerprint: State.sessionFingerprint, values: values, maxFileSize: maxFileSize,
            keptFiles: keptFiles, batchDelay: batchDelay, snapshot: snapshot, redact: redact)
    }
}
