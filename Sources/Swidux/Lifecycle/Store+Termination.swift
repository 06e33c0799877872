#if canImport(AppKit) && !targetEnvironment(macCatalyst)
import AppKit

extension Store {
    /// Flushes when the Mac app quits: quitting (Cmd-Q, logging out) does not change
    /// `scenePhase`, so ``View/flushesOnBackground(_:)`` alone would miss it. On
    /// `NSApplication.willTerminateNotification` the main run loop keeps running until the
    /// flush returned or `timeout` passed, then the app exits.
    ///
    /// ```swift
    /// init() {
    ///     store = …
    ///     store.flushesOnTermination()
    /// }
    /// ```
    ///
    /// - Returns: The notification observer (NotificationCenter keeps it; remove it to stop).
    @discardableResult
    public func flushesOnTermination(timeout: TimeInterval = 5) -> any NSObjectProtocol {
        NotificationCenter.default.addObserver(
            forName: NSApplication.willTerminateNotification, object: nil, queue: .main
        ) { [weak self] _ in
            MainActor.assumeIsolated { self?.flushBeforeExit(timeout: timeout) }
        }
    }

    /// Runs the main run loop (which runs main-actor jobs) until a flush returned.
    private func flushBeforeExit(timeout: TimeInterval) {
        let done = FlushDone()
        let task = flushInBackgroundTask(.unprotected)
        Task { @MainActor in
            await task.value
            done.value = true
        }
        let deadline = Date(timeIntervalSinceNow: timeout)
        while !done.value, Date() < deadline {
            _ = RunLoop.main.run(mode: .default, before: Date(timeIntervalSinceNow: 0.05))
        }
    }
}

@MainActor
private final class FlushDone {
    var value = false
}
#endif
