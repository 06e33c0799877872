/// How long continuous sync (``SyncClient/start()``) waits before trying again after a
/// failure: `first` after the first failure, twice as long after each further one, never
/// longer than `longest`. Whatever the policy, a wait ends at once when the server answers
/// any request of the client again (the long poll, retried after at most a few seconds,
/// notices the server's return), on ``SyncClient/retryNow()``, and where the Network framework
/// exists when the network comes back. A request the server refused as over its limits (429)
/// waits the server's `Retry-After` instead (at least 1 s, at most an hour), plus up to half again as
/// random jitter, and only ``SyncClient/stop()`` ends that wait; a 429 without the header takes
/// this policy's wait with the same jitter.
///
/// ```swift
/// let client = try SyncClient(database: database, server: url, token: token, tables: tables,
///                             retry: SyncRetryPolicy(first: .seconds(1), longest: .seconds(120)))
/// ```
public struct SyncRetryPolicy: Sendable, Equatable {
    /// The wait after the first failure.
    public var first: Duration
    /// The longest wait, reached by doubling `first`.
    public var longest: Duration

    /// A policy; the default waits 0.25, 0.5, 1, 2, 4, 8, 16 s, then 30 s.
    ///
    /// ```swift
    /// let patient = SyncRetryPolicy(first: .seconds(5), longest: .seconds(300))
    /// ```
    public init(first: Duration = .milliseconds(250), longest: Duration = .seconds(30)) {
        self.first = max(first, .zero)
        self.longest = max(longest, self.first)
    }

    /// The default: 0.25 s after the first failure, doubling up to 30 s.
    ///
    /// ```swift
    /// let client = try SyncClient(database: database, server: url, token: token, tables: tables, retry: .standard)
    /// ```
    public static let standard = SyncRetryPolicy()

    /// The wait after `failures` failures in a row (1 or more).
    func delay(afterFailures failures: Int) -> Duration {
        var delay = first
        // Bounded: a zero `first` never reaches `longest` by doubling.
        for _ in 1..<min(max(failures, 1), 64) where delay < longest {
            // Never past `longest`, so that doubling cannot overflow.
            delay = delay > longest / 2 ? longest : delay * 2
        }
        return min(delay, longest)
    }
}
