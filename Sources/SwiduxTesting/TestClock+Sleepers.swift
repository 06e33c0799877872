/// Waiting for effects to reach their `sleep` before advancing the clock.
extension TestClock {
    /// Waits, in real time, until something sleeps on this clock, giving up after `timeout`.
    /// The wait counts as the `TestStore` helpers' do: a stretch in which the whole test
    /// process got no CPU counts as at most 100 ms, so a loaded machine can make it last
    /// longer than `timeout`, never shorter.
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
        var budget = WaitBudget(timeout)
        while !budget.isSpent {
            do {
                try await checkSuspension()   // throws when something sleeps on the clock
            } catch {
                return true
            }
            budget.tick()
        }
        return false
    }
}
