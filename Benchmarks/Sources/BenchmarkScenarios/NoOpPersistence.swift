import Swidux
import BenchmarkSupport

/// Persistence on, with a writer that does nothing and a one-hour debounce: a send pays the
/// change tracking and never a flush inside the timed loop.
@MainActor
public func noOpPersistence() -> PersistenceMiddleware<AppState> {
    let persistence = PersistenceMiddleware(
        writers: [StateWriter(keyPath: \AppState.items) { _, _ in }],
        debounce: .seconds(3600)
    )
    persistence.loopWarningThreshold = .max   // thousands of sends per window are the point here
    return persistence
}
