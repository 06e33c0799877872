extension TestClock {
    /// Waits, in real time and at most `timeout`, until something sleeps on this clock.
    ///
    /// You rarely need it. Work that sleeps on the clock (a debounce window of
    /// `PersistenceMiddleware`, a debounced effect) fixes its deadline when it is scheduled
    /// — when the action is reduced or the effect starts — and sleeps in its own task a
    /// moment later. An `advance` made in between is not missed: the task finds its deadline
    /// already past and runs at once. So advance right after `send`; what the sleeper does
    /// next still happens in its task, so wait for its *result* (`receive`, or
    /// `TestStore.closePersistenceWindow()` for persistence).
    ///
    /// Use this to check that something is scheduled at all, or before `advance` in tests
    /// that drive a hand-written sleeper which computes its deadline when it starts sleeping:
    ///
    /// ```swift
    /// await store.send(.add(milk)) { $0.todos[milk.id] = milk }
    /// #expect(await clock.waitForSleepers())   // the persistence window is open
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
