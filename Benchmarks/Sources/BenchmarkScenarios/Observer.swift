import Observation

/// One `withObservationTracking` observer, re-armed by the caller after a notification, as
/// SwiftUI re-arms a view's tracking after every change.
@MainActor
public final class Observer {
    public private(set) var changes = 0
    private var seen = 0
    private let read: @MainActor () -> Void

    public init(read: @escaping @MainActor () -> Void) {
        self.read = read
        arm()
    }

    func arm() {
        withObservationTracking { read() } onChange: { [weak self] in
            // onChange runs synchronously in willSet, on the main actor here.
            MainActor.assumeIsolated { self?.changes += 1 }
        }
    }

    /// Re-arms if the last send notified.
    public func rearmIfNeeded() {
        if changes != seen {
            seen = changes
            arm()
        }
    }
}

/// Keeps the optimizer from removing the computation of `value` (package-benchmark's
/// `blackHole` is not available outside its benchmark targets).
@inline(never)
public func keepAlive<T>(_ value: T) {
    withExtendedLifetime(value) {}
}
