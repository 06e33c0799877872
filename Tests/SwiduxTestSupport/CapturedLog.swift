import Logging
import Swidux

/// A log handler that keeps the messages it is given, for tests that check what a store, a
/// middleware or a database logged. One instance is shared by every logger made from it.
///
/// ```swift
/// let log = CapturedLog(minimum: .error)
/// let database = try SwiduxDatabase(path: path, logger: log.logger)
/// // …
/// #expect(log.messages.isEmpty)
/// ```
public final class CapturedLog: LogHandler, @unchecked Sendable {
    private let stored = LockedValue<[String]>([])
    /// The least level kept; messages below it are dropped.
    public let minimum: Logger.Level
    /// Metadata, as `LogHandler` asks; not captured.
    public var metadata: Logger.Metadata = [:]
    /// The level the loggers made from this handler let through: all of them, so that
    /// ``minimum`` alone decides.
    public var logLevel: Logger.Level = .trace

    /// A handler keeping messages at `minimum` or above (every message by default).
    public init(minimum: Logger.Level = .trace) {
        self.minimum = minimum
    }

    /// The messages kept so far, in order.
    public var messages: [String] { stored.withLock { $0 } }

    /// A logger writing to this handler.
    public var logger: Logger { Logger(label: "test.captured") { _ in self } }

    /// The metadata value for `key`.
    public subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    /// Keeps the event's message if its level is at least ``minimum``.
    public func log(event: LogEvent) {
        guard event.level >= minimum else { return }
        stored.withLock { $0.append("\(event.message)") }
    }
}
