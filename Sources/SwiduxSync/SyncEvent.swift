/// What continuous sync (``SyncClient/start()``) reports on ``SyncClient/events``.
///
/// ```swift
/// for await event in client.events {
///     if case .failed(let error, let retry) = event { print("\(error); retrying in \(retry)") }
/// }
/// ```
public enum SyncEvent: Sendable {
    /// A push or a pull changed something.
    case synced(SyncReport)
    /// A push or a pull failed; it is retried after the given delay.
    case failed(SyncError, retryingIn: Duration)
    /// A push or a pull succeeded again after failures.
    case recovered
}
