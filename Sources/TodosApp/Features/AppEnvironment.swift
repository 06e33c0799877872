import Foundation

/// Dependencies of the reducers: clock (search debounce), id and date generators and
/// the one-shot event sink (status messages).
public struct AppEnvironment: Sendable {
    public var clock: any Clock<Duration>
    public var searchDebounce: Duration
    public var uuid: @Sendable () -> UUID
    public var now: @Sendable () -> Date
    /// One-shot events (status messages) for whoever listens (the terminal UI).
    public var events: EventChannel<AppEvent>

    public init(
        clock: any Clock<Duration> = ContinuousClock(),
        searchDebounce: Duration = .milliseconds(200),
        uuid: @escaping @Sendable () -> UUID = { UUID() },
        now: @escaping @Sendable () -> Date = { Date() },
        events: EventChannel<AppEvent> = EventChannel()
    ) {
        self.clock = clock
        self.searchDebounce = searchDebounce
        self.uuid = uuid
        self.now = now
        self.events = events
    }

    /// An effect that emits `event` once.
    func event(_ event: AppEvent) -> Effect<AppAction> {
        .emit(event, on: events)
    }

    func status(_ message: String) -> Effect<AppAction> { event(.status(message)) }
}

/// Limits on user input: long input is cut, not rejected.
enum Limits {
    static let title = 500
    static let name = 100

    static func clean(_ text: String, max: Int) -> String {
        let flattened = String(text.map { $0.isNewline || $0 == "\t" ? " " : $0 })
        let trimmed = flattened.trimmingCharacters(in: .whitespaces)
        return trimmed.count > max ? String(trimmed.prefix(max)) : trimmed
    }
}
