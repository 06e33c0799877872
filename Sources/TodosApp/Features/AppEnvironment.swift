import Foundation

/// Dependencies of the reducers: clock (search debounce), id and date generators and
/// the one-shot event sink (status messages).
struct AppEnvironment: Sendable {
    var clock: any Clock<Duration>
    var searchDebounce: Duration
    var uuid: @Sendable () -> UUID
    var now: @Sendable () -> Date
    /// One-shot events (status messages) for whoever listens (the terminal UI).
    var events: EventChannel<AppEvent>

    init(
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

/// Limits on user input: longer input is refused with the limit named, never cut.
enum Limits {
    static let title = 500
    static let name = 100
    /// The input line's own bound, far above every field's limit: over-long text is kept
    /// there for editing, and only this much is taken.
    static let draft = 10_000

    /// Newlines and tabs become spaces, surrounding spaces go. Never shortens the text otherwise.
    static func clean(_ text: String) -> String {
        let flattened = String(text.map { $0.isNewline || $0 == "\t" ? " " : $0 })
        return flattened.trimmingCharacters(in: .whitespaces)
    }

    /// Why `text` is refused as `what` ("a title") of at most `max` characters, or `nil` if it fits.
    static func excess(_ text: String, max: Int, what: String) -> String? {
        guard text.count > max else { return nil }
        return "\(what) is limited to \(max) characters (this one has \(text.count))"
    }
}
