import Observation

extension Store {
    /// Runs `apply` now, and again whenever something it read from the store changes —
    /// UIKit and AppKit code renders from the store this way, without SwiftUI or Combine.
    /// Reads are tracked as everywhere else (`store.count` observes that slice,
    /// `store.items[id]` that row): an action that
    /// changes nothing `apply` read does not run it. Re-runs happen on the main actor just
    /// after the change, once per change however many slices it touched; each run tracks
    /// what it reads anew.
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
    /// ends when the loop that reads it stops (and the observation with it).
    ///
    /// ```swift
    /// for await count in store.values(of: \.count) {
    ///     label.text = "\(count)"
    /// }
    /// ```
    public func values<Value: Sendable>(of keyPath: KeyPath<State, Value>) -> AsyncStream<Value> {
        let (stream, continuation) = AsyncStream.makeStream(of: Value.self, bufferingPolicy: .bufferingNewest(1))
        let token = observe { store in continuation.yield(store[dynamicMember: keyPath]) }
        let holder = TokenHolder(token)
        continuation.onTermination = { _ in Task { @MainActor in holder.release() } }
        return stream
    }
}
