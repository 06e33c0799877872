import Logging

/// Logs every action a ``Store`` reduces, with swift-log.
///
/// ```swift
/// let store = Store(initialState: AppState(), reducer: AppReducer(), environment: env,
///                   middleware: [LoggingMiddleware(logger: Logger(label: "app.store"))])
/// ```
@MainActor
public final class LoggingMiddleware<State, Action>: Middleware {
    /// The swift-log logger actions are written to.
    public var logger: Logger
    /// The level actions are logged at.
    public var level: Logger.Level
    private let describe: (Action) -> String

    /// A middleware that logs each action, before it is reduced, to `logger` at `level`.
    ///
    /// - Parameters:
    ///   - logger: the swift-log logger actions are written to.
    ///   - level: the level actions are logged at (default `.debug`).
    ///   - describe: how an action is written (default: `String(describing:)`).
    public init(
        logger: Logger = Logger(label: "swidux.store"),
        level: Logger.Level = .debug,
        describe: @escaping (Action) -> String = { String(describing: $0) }
    ) {
        self.logger = logger
        self.level = level
        self.describe = describe
    }

    /// Logs `action` (described by `describe`) at ``level``.
    public func beforeReduce(state: State, action: Action) {
        logger.log(level: level, "action: \(describe(action))")
    }
}
