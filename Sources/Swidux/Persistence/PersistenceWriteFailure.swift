/// A failed write: which writer, why, and how many consecutive flushes have failed.
/// Nothing is lost: the batch stays pending and is retried with backoff.
public struct PersistenceWriteFailure: Error, Sendable, CustomStringConvertible {
    /// The writer that threw (its key path).
    public let writer: String
    /// What the writer threw.
    public let underlying: any Error
    /// 1 for the first failure, 2 for the first retry's failure, ...
    public let attempt: Int
    /// The changes kept for retry: writes plus deletions (a pending reorder counting as
    /// one) of the failed writer and of the writers after it, newer changes included.
    public let pendingCount: Int

    /// A one-line explanation for logs: writer, attempt, pending changes and the cause.
    public var description: String {
        "Swidux persistence: writer \(writer) failed (attempt \(attempt), \(pendingCount) changes kept for retry): \(underlying)"
    }
}

/// When a failed flush is retried: `initialDelay`, multiplied by `multiplier` after each
/// further failure, at most `maxDelay`.
public struct RetryPolicy: Sendable, Equatable {
    /// The wait before the first retry.
    public var initialDelay: Duration
    /// The factor the wait grows by after each further failure.
    public var multiplier: Double
    /// The longest wait between two retries.
    public var maxDelay: Duration

    /// A backoff policy.
    ///
    /// ```swift
    /// let retry = RetryPolicy(initialDelay: .seconds(1), multiplier: 3, maxDelay: .seconds(60))
    /// retry.delay(forAttempt: 2)  // 3 s
    /// ```
    public init(initialDelay: Duration = .milliseconds(500), multiplier: Double = 2, maxDelay: Duration = .seconds(30)) {
        self.initialDelay = initialDelay
        self.multiplier = multiplier
        self.maxDelay = maxDelay
    }

    /// 0.5 s, 1 s, 2 s, … up to 30 s.
    public static var `default`: RetryPolicy { RetryPolicy() }

    /// The wait before retry number `attempt` (1-based).
    public func delay(forAttempt attempt: Int) -> Duration {
        var delay = initialDelay
        for _ in 1..<max(1, attempt) {
            delay = delay * multiplier
            if delay >= maxDelay { return maxDelay }
        }
        return min(delay, maxDelay)
    }
}
