@_spi(Testing) import Swidux

extension TestStore {
    /// Closes the persistence debounce window and returns when the flush it started has
    /// written: one call instead of `clock.waitForSleepers()`, `clock.advance(by:)` and
    /// `backend.waitForBatches()`. Then assert what was written on the backend.
    ///
    /// ```swift
    /// await store.send(.add(milk)) { $0.items[milk.id] = milk }
    /// await store.send(.add(eggs)) { $0.items[eggs.id] = eggs }
    /// await store.closePersistenceWindow()
    /// #expect(backend.takeBatches() == [.init(writes: [milk, eggs])])
    /// ```
    ///
    /// The window closes the way it does in the app: the persistence middleware's
    /// `TestClock` is advanced by its `debounce` (so effects sleeping on the same clock see
    /// that time pass too), and the flush runs in the middleware's own task. Unlike
    /// ``flush()``, which writes at once, this checks the window itself.
    ///
    /// Fails when the test store has no `PersistenceMiddleware` or its clock is not a
    /// `TestClock<Duration>`, and when changes are still pending `timeout` of real time
    /// later: a write failed (it is retried after a backoff; see
    /// `PersistenceMiddleware/onError`) or an action kept changing persisted state. The
    /// flush is real I/O (a SQLite transaction on a loaded CI machine can take seconds), so
    /// the default is ``timeout`` but at least 10 seconds; a passing test waits only until
    /// the flush has written.
    public func closePersistenceWindow(
        timeout: Duration? = nil,
        fileID: StaticString = #fileID,
        filePath: StaticString = #filePath,
        line: UInt = #line,
        column: UInt = #column
    ) async {
        let site = CallSite(fileID: fileID, filePath: filePath, line: line, column: column)
        guard let persistence else {
            site.report("closePersistenceWindow(): this test store has no PersistenceMiddleware; pass one as `persistence:`.")
            return
        }
        guard let clock = persistence.clockForTesting as? TestClock<Duration> else {
            site.report("""
            closePersistenceWindow(): the PersistenceMiddleware's clock is \
            \(type(of: persistence.clockForTesting)), not a TestClock<Duration>; pass \
            `clock: TestClock()` to it, or call `flush()` to write without the window.
            """)
            return
        }
        await clock.advance(by: persistence.debounce)
        // The window's task wakes and takes the pending changes, then writes them; no
        // suspension separates "pending" from "flushing", so one of them is seen until done.
        let limit = timeout ?? max(self.timeout, Self.minimumFlushTimeout)
        var budget = WaitBudget(limit)
        var polls = 0
        while persistence.hasPendingWrites || persistence.isFlushing, !budget.isSpent {
            await pause(poll: polls)
            budget.tick()
            polls += 1
        }
        if persistence.hasPendingWrites || persistence.isFlushing {
            site.report("""
            Changes are still pending after the persistence window closed (waited \(limit)): \
            a write failed and waits for its retry (see the middleware's `onError`), or \
            actions keep changing persisted state.
            """)
        }
        await settleEffects()
        reportEffectErrors(at: site)
    }

    /// The least `closePersistenceWindow()` waits for a flush by default.
    static var minimumFlushTimeout: Duration { .seconds(10) }
}
