import ServiceLifecycle

/// A service that runs `action` when graceful shutdown begins (or the group is cancelled).
/// Listed after the HTTP application in a ``ServiceGroup``, it is told first (a group stops
/// its services in reverse order), so that the application then drains quickly.
///
/// ```swift
/// ServiceGroup(configuration: .init(services: [app, ShutdownHook { await notifier.close() }], logger: logger))
/// ```
struct ShutdownHook: Service {
    let action: @Sendable () async -> Void

    init(_ action: @escaping @Sendable () async -> Void) { self.action = action }

    func run() async throws {
        try? await gracefulShutdown()
        await action()
    }
}
