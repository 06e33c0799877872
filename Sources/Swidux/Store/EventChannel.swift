import Foundation

/// One-shot events outside state (what an effect publisher carries, e.g. navigation): each
/// emitted value is delivered **once** to every current consumer. Emitted while nobody
/// listens, values wait (up to `bufferSize`) for the next consumer.
///
/// ```swift
/// let navigation = EventChannel<UserEvent>()
/// // reducer:
/// case .selectUser(let id): return .emit(.navigate(id), on: environment.navigation)
/// // view / coordinator:
/// for await event in navigation.events { handle(event) }
/// ```
public final class EventChannel<Event: Sendable>: Sendable {
    private struct State {
        var consumers: [UUID: AsyncStream<Event>.Continuation] = [:]
        var backlog: [Event] = []
    }
    private let state = LockedValue(State())
    /// How many events are kept while nobody listens (oldest dropped first).
    public let bufferSize: Int

    /// A channel that keeps up to `bufferSize` events for a consumer that is not listening yet.
    ///
    /// - Parameter bufferSize: how many events wait for a consumer while nobody listens
    ///   (oldest dropped first); `0` keeps none. Must not be negative.
    public init(bufferSize: Int = 64) {
        precondition(bufferSize >= 0, "EventChannel: bufferSize must be 0 or more (0 keeps no events while nobody listens); got \(bufferSize)")
        self.bufferSize = bufferSize
    }

    /// Delivers `event` once to each current consumer, or keeps it for the next one.
    public func emit(_ event: Event) {
        let targets = state.withLock { state in
            let targets = Array(state.consumers.values)
            if targets.isEmpty {
                state.backlog.append(event)
                if state.backlog.count > bufferSize { state.backlog.removeFirst(state.backlog.count - bufferSize) }
            }
            return targets
        }
        for continuation in targets { continuation.yield(event) }
    }

    /// A new consumer: the events emitted from now on (and any waiting backlog), until the
    /// consuming task stops iterating.
    public var events: AsyncStream<Event> {
        let (stream, continuation) = AsyncStream.makeStream(of: Event.self)
        let id = UUID()
        let pending = state.withLock { state in
            defer { state.backlog.removeAll() }
            state.consumers[id] = continuation
            return state.backlog
        }
        for event in pending { continuation.yield(event) }
        continuation.onTermination = { [weak self] _ in
            guard let self else { return }
            _ = self.state.withLock { $0.consumers.removeValue(forKey: id) }
        }
        return stream
    }

    /// Number of current consumers.
    public var consumerCount: Int {
        state.withLock { $0.consumers.count }
    }

    /// Ends every consumer's stream.
    public func finish() {
        let targets = state.withLock { state in
            defer { state.consumers.removeAll() }
            return Array(state.consumers.values)
        }
        for continuation in targets { continuation.finish() }
    }
}
