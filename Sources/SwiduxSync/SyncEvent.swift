/// What continuous sync (``SyncClient/start()``) reports on ``SyncClient/events``: a first
/// successful pull after ``SyncClient/start()`` reports ``synced(_:)`` even when it brought
/// nothing, so that a client knows it is in sync.
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
    /// The server refused the token (401): continuous sync stopped trying, since the same
    /// token would be refused again, until ``SyncClient/retryNow()``.
    case stopped(SyncError)
}
