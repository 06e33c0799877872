/// Where an action (or a change) reaching a ``Store`` came from, as middleware see it in
/// ``Middleware/beforeReduce(state:action:source:)`` and as a ``SessionRecorder`` writes it.
///
/// ```swift
/// final class Audit: Middleware {
///     func beforeReduce(state: AppState, action: AppAction, source: ActionSource) {
///         if source == .effect { print("effect sent \(action)") }
///     }
/// }
/// ```
public enum ActionSource: String, Codable, Sendable, CaseIterable {
    /// Sent to the store with ``Store/send(_:)`` (a view, a key press, a command line, a hook).
    case ui
    /// Sent by an effect (including `.send` follow-ups of a reducer).
    case effect
    /// Changes another writer made, taken in by ``Store/applyExternalChanges(_:)``.
    case external
    /// Changes a sync engine made (external changes whose origin starts with `"sync"`).
    case sync

    /// The source of external changes from `origin`: ``sync`` when it starts with `"sync"`.
    ///
    /// ```swift
    /// ActionSource(externalOrigin: "sync")              // .sync
    /// ActionSource(externalOrigin: "sqlite:/tmp/a.db")  // .external
    /// ```
    public init(externalOrigin origin: String) {
        self = origin.hasPrefix("sync") ? .sync : .external
    }
}
