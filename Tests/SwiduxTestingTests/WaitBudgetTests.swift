import Foundation
@testable import SwiduxTesting
import Testing

/// The helpers' waits count a starved pause (the process got no CPU for a long stretch)
/// as at most `WaitBudget.maximumPause`, so that a loaded machine cannot make a flush or an
/// effect look stuck when it never had a chance to run.
@Suite("Wait budget")
struct WaitBudgetTests {
    @Test func aLongStallCountsAsOneShortPause() {
        var budget = WaitBudget(.milliseconds(300))
        Thread.sleep(forTimeInterval: 0.5)   // the whole process stalled longer than the limit
        budget.tick()
        #expect(!budget.isSpent)
        #expect(budget.spent == WaitBudget.maximumPause)
    }

    @Test func shortPausesAddUpToTheLimit() async {
        var budget = WaitBudget(.milliseconds(30))
        let start = ContinuousClock.now
        while !budget.isSpent {
            try? await Task.sleep(for: .milliseconds(1))
            budget.tick()
        }
        // At least the limit went by, in wall-clock time.
        #expect(ContinuousClock.now - start >= .milliseconds(30))
    }
}
