import Observation

extension Store {
    /// Runs `apply` now, and again whenever something it read from the store changes —
    /// UIKit and AppKit code renders from the store this way, without SwiftUI or Combine.
    /// Reads are tracked as everywhere else (`store.count` observes that slice,
    /// `store.items[id]` that row): an action that
    /// changes nothing `apply` read does not run it. Re-runs happen on the main actor just
    /// after the change, once per change however many slices it touched; each run tracks
    /// what it reads anew. A closure may send actions: when one changes something the
    /// closure had read, the closure runs again at once (before `observe` returns, for the
    /// first run), until what it read is current.
    ///
    /// ```swift
    /// let token = store.observe { store in
    ///     label.text = "\(store.count)"
    ///     button.isEnabled = !store.isLoading
    /// }
    /// // …
    /// token.cancel()   // or release the token
    /// ```
    ///
    /// - Returns: The token: the observation lasts while it is held.
    public func observe(_ apply: @escaping @MainActor (Store<State, Action>) -> Void) -> ObservationToken {
        observeRepeatedly(self, apply)
    }

    /// The values of a slice, as an `AsyncSequence`: the current value first, then each new
    /// value after an action (or an undo, or an external change) changes it. The sequence
    /// ends when the loop that reads it stops (and the observation with it), and when the
    /// store is released — with a scoped store, when its root store and every store scoped
    /// from it are gone (as their effects are cancelled then): a loop over it does not
    /// outlive the store. The sequence does not keep the store alive.
    ///
    /// ```swift
    /// for await count in store.values(of: \.count) {
    ///     label.text = "\(count)"
    /// }
    /// // here: the task was cancelled, or the store is gone
    /// ```
    public func values<Value: Sendable>(of keyPath: KeyPath<State, Value>) -> AsyncStream<Value> {
        let (stream, continuation) = AsyncStream.makeStream(of: Value.self, bufferingPolicy: .bufferingNewest(1))
        let source = SliceSource(read: box.weakRead(keyPath))
        let token = observeRepeatedly(source) { source in
            if let value = source.read() { continuation.yield(value) } else { continuation.finish() }
        }
        let registry = box.root.registry
        let release = registry.onRelease { continuation.finish() }
        let holder = TokenHolder(token, keeping: source)
        continuation.onTermination = { _ in
            registry.removeReleaseHandler(release)
            Task { @MainActor in holder.release() }
        }
        return stream
    }
}

/// What a ``Store/values(of:)`` sequence observes: a read of the slice that holds the store
/// weakly (the sequence ends when the store goes, so it must not keep it).
@MainActor
private final class SliceSource<Value>: Sendable {
    let read: @MainActor () -> Value?
    init(read: @escaping @MainActor () -> Value?) { self.read = read }
}
