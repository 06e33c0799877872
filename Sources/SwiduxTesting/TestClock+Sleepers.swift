/// Waiting for effects to reach their `sleep` before advancing the clock.
extension TestClock {
    /// Waits, in real time and at most `timeout`, until something sleeps on this clock.
    ///
    /// Work that sleeps on the clock (a debounce window of `PersistenceMiddleware`, a
    /// debounced effect) starts its sleep in its own task, a moment after the action that
    /// scheduled it. Advancing the clock before that moment would not wake it, so wait first:
    ///
    /// ```swift
    /// await store.send(.add(milk)) { $0.todos[milk.id] = milk }
    /// await clock.waitForSleepers()                  // the persistence window is open
    /// await clock.advance(by: .milliseconds(250))    // and now it closes
    /// ```
    ///
    /// - Returns: `true` if something sleeps on the clock.
    @discardableResult
    public func waitForSleepers(timeout: Swift.Duration = .seconds(1)) async -> Bool {
        let start = ContinuousClock.now
        while ContinuousClock.now - start < timeout {
            do {
                try await checkSuspension()   // throws when something sleeps on the clock
            } catch {
                return true
            }
        }
        return false
    }
}
