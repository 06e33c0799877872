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

/// How many times in a row a run that changed what it read (it sent an action) is run again
/// at once; beyond it, the next run waits for the main actor's next turn, so that a closure
/// that always changes what it reads re-runs like any observer instead of blocking the actor.
private let immediateReruns = 64

@MainActor
private func runObserving<Subject: AnyObject & Sendable>(_ subject: Subject, _ apply: @escaping @MainActor (Subject) -> Void, token: WeakToken) {
    for _ in 0..<immediateReruns {
        guard let live = token.value, !live.isCancelled else { return }
        token.runs &+= 1
        let runID = token.runs
        let run = ObservedRun.begin()
        withObservationTracking {
            apply(subject)
        } onChange: { [weak subject] in
            // Called as the change happens (before it is complete): run again after it.
            Task { @MainActor in
                // A run superseded by a later one (re-run at once) no longer re-runs.
                guard let subject, token.runs == runID else { return }
                runObserving(subject, apply, token: token)
            }
        }
        run.end()
        // The closure changed something it had read while it ran (it sent an action): the
        // change was made before the observation above was installed and notified nobody,
        // so what the closure showed is not current. Run it again now.
        guard run.isStale else { return }
    }
    token.runs &+= 1
    Task { @MainActor [weak subject] in
        guard let subject else { return }
        runObserving(subject, apply, token: token)
    }
}

/// A token held weakly by the observation loop, so that releasing it stops the loop.
@MainActor
private final class WeakToken: Sendable {
    weak var value: ObservationToken?
    /// Runs started so far: only the latest run's observation re-runs the closure.
    var runs = 0
    init(_ value: ObservationToken) { self.value = value }
}

/// Keeps a ``Store/values(of:)`` sequence's token (and the subject it observes) until the
/// sequence ends.
@MainActor
final class TokenHolder: Sendable {
    private var token: ObservationToken?
    private var subject: AnyObject?
    init(_ token: ObservationToken, keeping subject: AnyObject) {
        self.token = token
        self.subject = subject
    }
    func release() {
        token?.cancel()
        token = nil
        subject = nil
    }
}
