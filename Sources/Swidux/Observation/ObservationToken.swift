import Observation


/// What ``Store/observe(_:)`` returns: while it is held, the observation runs; releasing
/// it (or calling ``cancel()``) stops it.
///
/// ```swift
/// final class CounterViewController: UIViewController {
///     private var observation: ObservationToken?
///     override func viewDidLoad() {
///         super.viewDidLoad()
///         observation = store.observe { [weak self] store in
///             self?.countLabel.text = "\(store.count)"
///         }
///     }
/// }
/// ```
@MainActor
public final class ObservationToken {
    private(set) var isCancelled = false
    private let onCancel: @MainActor () -> Void

    init(onCancel: @escaping @MainActor () -> Void = {}) { self.onCancel = onCancel }

    /// Stops the observation: its closure never runs again.
    public func cancel() {
        guard !isCancelled else { return }
        isCancelled = true
        onCancel()
    }

    isolated deinit { cancel() }
}

/// Runs `apply(subject)` in `withObservationTracking`, and again on the main actor after each
/// change it was notified of, while the returned token lives.
@MainActor
func observeRepeatedly<Subject: AnyObject & Sendable>(_ subject: Subject, _ apply: @escaping @MainActor (Subject) -> Void) -> ObservationToken {
    let token = ObservationToken()
    runObserving(subject, apply, token: WeakToken(token))
    return token
}

@MainActor
private func runObserving<Subject: AnyObject & Sendable>(_ subject: Subject, _ apply: @escaping @MainActor (Subject) -> Void, token: WeakToken) {
    guard let live = token.value, !live.isCancelled else { return }
    withObservationTracking {
        apply(subject)
    } onChange: { [weak subject] in
        // Called as the change happens (before it is complete): run again after it.
        Task { @MainActor in
            guard let subject else { return }
            runObserving(subject, apply, token: token)
        }
    }
}

/// A token held weakly by the observation loop, so that releasing it stops the loop.
@MainActor
private final class WeakToken: Sendable {
    weak var value: ObservationToken?
    init(_ value: ObservationToken) { self.value = value }
}

/// Keeps a ``Store/values(of:)`` sequence's token until the sequence ends.
@MainActor
final class TokenHolder: Sendable {
    private var token: ObservationToken?
    init(_ token: ObservationToken) { self.token = token }
    func release() { token?.cancel(); token = nil }
}
