/// Identical reads made at the same time share one database query: when one push wakes
/// every long poll of its space, the polls read the same page after the same cursor, and
/// check the same token, at once — one query answers them all instead of one per poll
/// (2,000 open long polls per server).
///
/// A key names what is read *and* the space's notification generation the readers saw
/// before reading (``Notifier/generation(of:)``): every read started after that
/// generation was seen includes every commit it counts, so a reader may take any read of
/// its key, even one started a moment before it came.
///
/// A read is shared while it runs; a reader that passes `reuse` also takes a read of its
/// key that ended at most that long ago. Long polls do: the ~100 polls one push answers
/// come back with their next request over tens of milliseconds, too spread out to meet
/// one running read, and the space's generation has not moved in between (a reused page
/// misses only commits whose notification has not arrived yet — which then wakes the poll).
///
/// ```swift
/// let reads = SharedReads<PageKey, PullPage>()
/// let page = try await reads.value(for: key, reuse: .seconds(1)) { try await readPage(…) }
/// ```
actor SharedReads<Key: Hashable & Sendable, Value: Sendable> {
    private var running: [Key: Task<Value, any Error>] = [:]
    /// Reads that ended, with when they ended (for readers that pass `reuse`).
    private var ended: [Key: (value: Value, at: ContinuousClock.Instant)] = [:]
    /// How long an ended read is kept at most (the longest `reuse` any reader passes).
    private let keep: Duration
    private var lastPrune = ContinuousClock.now

    /// Shared reads, whose ended reads are kept for `keep` (at most the longest `reuse` used).
    init(keep: Duration = .zero) { self.keep = keep }

    /// The running read of `key`'s value, or one that ended at most `reuse` ago, or a new
    /// one made by `read`.
    func value(for key: Key, reuse: Duration = .zero, _ read: @escaping @Sendable () async throws -> Value) async throws -> Value {
        if let task = running[key] { return try await task.value }
        if reuse > .zero, let done = ended[key], ContinuousClock.now - done.at <= min(reuse, keep) { return done.value }
        let task = Task { try await read() }
        running[key] = task
        defer { running[key] = nil }
        let value = try await task.value
        if keep > .zero { remember(value, for: key) }
        return value
    }

    private func remember(_ value: Value, for key: Key) {
        let now = ContinuousClock.now
        ended[key] = (value, now)
        if now - lastPrune > keep {
            lastPrune = now
            ended = ended.filter { now - $0.value.at <= keep }
        }
    }
}
