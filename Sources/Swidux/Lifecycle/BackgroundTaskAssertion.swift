import Foundation
#if canImport(UIKit)
import UIKit
#endif

/// Asks the system to keep the app running while a piece of work finishes — on iOS a
/// background task (`UIApplication.beginBackgroundTask`), on other Apple platforms an
/// expiring activity (`ProcessInfo.performExpiringActivity`), elsewhere nothing.
///
/// ``Store/flushInBackgroundTask(_:)`` holds one around a flush; a test injects its own to
/// see when the assertion begins and ends:
///
/// ```swift
/// let assertion = BackgroundTaskAssertion { name in
///     print("begin \(name)")
///     return { print("end \(name)") }
/// }
/// await store.flushInBackgroundTask(assertion).value
/// ```
public struct BackgroundTaskAssertion: Sendable {
    /// Begins an assertion named `name`; the returned closure ends it (called exactly once).
    let begin: @MainActor @Sendable (_ name: String) -> @MainActor @Sendable () -> Void

    /// An assertion made of `begin`, which starts it and returns the closure that ends it.
    ///
    /// ```swift
    /// let none = BackgroundTaskAssertion { _ in { } }
    /// ```
    public init(begin: @escaping @MainActor @Sendable (_ name: String) -> @MainActor @Sendable () -> Void) {
        self.begin = begin
    }

    /// No assertion: the work runs as a plain task (Linux, command-line tools).
    ///
    /// ```swift
    /// store.flushInBackgroundTask(.unprotected)
    /// ```
    public static let unprotected = BackgroundTaskAssertion { _ in {} }

    /// The platform's assertion: a UIKit background task where UIKit exists, an expiring
    /// activity on other Apple platforms, ``unprotected`` elsewhere.
    ///
    /// ```swift
    /// store.flushInBackgroundTask(.system)
    /// ```
    public static var system: BackgroundTaskAssertion {
        #if canImport(UIKit) && !os(watchOS)
        BackgroundTaskAssertion { name in
            let task = UIKitBackgroundTask()
            task.id = UIApplication.shared.beginBackgroundTask(withName: name) {
                MainActor.assumeIsolated { task.end() }   // expired: end it, as UIKit requires
            }
            return { task.end() }
        }
        #elseif canImport(Darwin)
        BackgroundTaskAssertion { name in
            let finished = DispatchSemaphore(value: 0)
            ProcessInfo.processInfo.performExpiringActivity(withReason: name) { expired in
                // Called on a background queue: returning ends the activity.
                if !expired { finished.wait() }
            }
            return { finished.signal() }
        }
        #else
        .unprotected
        #endif
    }
}

#if canImport(UIKit) && !os(watchOS)
/// One UIKit background task, ended once.
@MainActor
private final class UIKitBackgroundTask {
    var id = UIBackgroundTaskIdentifier.invalid

    func end() {
        guard id != .invalid else { return }
        UIApplication.shared.endBackgroundTask(id)
        id = .invalid
    }
}
#endif

extension Store {
    /// Flushes inside a background-task assertion: the assertion begins before this
    /// returns (so the system cannot suspend the app before the flush starts) and ends
    /// right after the flush, written or failed (a failed flush is reported and retried by
    /// the persistence middleware).
    ///
    /// ```swift
    /// .onChange(of: scenePhase) { _, phase in
    ///     if phase != .active { store.flushInBackgroundTask() }
    /// }
    /// ```
    @discardableResult
    public func flushInBackgroundTask(_ assertion: BackgroundTaskAssertion = .system) -> Task<Void, Never> {
        let end = assertion.begin("Swidux flush")
        return Task { @MainActor in
            defer { end() }
            try? await self.flush()
        }
    }
}
