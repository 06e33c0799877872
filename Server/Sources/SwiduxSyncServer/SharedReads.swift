/// Identical reads made at the same time share one database query: when one push wakes
/// every long poll of its space, the polls read the same page after the same cursor, and
/// check the same token, at once — one query answers them all instead of one per poll
/// (issue 31 item 5: 2,000 open long polls per server).
///
/// A key names what is read *and* the space's notification generation the readers saw
/// before reading (``Notifier/generation(of:)``): every read started after that
/// generation was seen includes every commit it counts, so a reader may take any read of
/// its key, even one started a moment before it came. A read is shared only while it runs.
///
/// ```swift
/// let reads = SharedReads<PageKey, PullResponse>()
/// let page = try await reads.value(for: key) { try await readPage(…) }
/// ```
actor SharedReads<Key: Hashable & Sendable, Value: Sendable> {
    private var running: [Key: Task<Value, any Error>] = [:]

    /// The running read of `key`'s value, or a new one made by `read`.
    func value(for key: Key, _ read: @escaping @Sendable () async throws -> Value) async throws -> Value {
        if let task = running[key] { return try await task.value }
        let task = Task { try await read() }
        running[key] = task
        defer { running[key] = nil }
        return try await task.value
    }
}
