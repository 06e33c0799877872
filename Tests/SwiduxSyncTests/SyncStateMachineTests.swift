@testable import SwiduxSync
import Testing

/// The client's decisions as values: no server, no database.
@Suite struct SyncStateMachineTests {
    static func running(_ retry: SyncRetryPolicy = .standard) -> SyncStateMachine {
        var machine = SyncStateMachine(retry: retry, pullRetryCap: .seconds(4), longPollSeconds: 25)
        let started = machine.start()
        #expect(started)
        return machine
    }

    @Test("a page asked for before a push round and arriving during or after it is discarded")
    func pagePulledAcrossAPushRoundIsDiscarded() {
        var machine = Self.running()
        let before = machine.pageRequested()
        #expect(machine.pageArrived(before) == .applyPage)

        machine.pushBegan()
        #expect(machine.pageArrived(before) == .discardPage)
        let during = machine.pageRequested()
        machine.pushEnded()
        #expect(machine.pageArrived(before) == .discardPage)
        #expect(machine.pageArrived(during) == .discardPage)

        // A whole round between the request and the answer: discarded too.
        let beforeRound = machine.pageRequested()
        machine.pushBegan()
        machine.pushEnded()
        #expect(machine.pageArrived(beforeRound) == .discardPage)
        #expect(machine.pageArrived(machine.pageRequested()) == .applyPage)
    }

    @Test("a scope change seen by a pull discards the pages asked for before it")
    func scopeChangeDiscardsEarlierPages() {
        var machine = Self.running()
        let before = machine.pageRequested()
        machine.scopeChanged()
        #expect(machine.pageArrived(before) == .discardPage)
        #expect(machine.pageArrived(machine.pageRequested()) == .applyPage)
    }

    @Test("retries back off per loop, the pull loop's capped, and start over when the server answers again")
    func retriesBackOffAndReset() {
        var machine = Self.running(SyncRetryPolicy(first: .seconds(1), longest: .seconds(30)))
        let push = (1...6).map { _ in machine.failed(.push, .other, cancelled: false) }
        #expect(push == [.retry(after: .seconds(1)), .retry(after: .seconds(2)), .retry(after: .seconds(4)),
                         .retry(after: .seconds(8)), .retry(after: .seconds(16)), .retry(after: .seconds(30))])
        let pull = (1...4).map { _ in machine.failed(.pull, .other, cancelled: false) }
        #expect(pull == [.retry(after: .seconds(1)), .retry(after: .seconds(2)), .retry(after: .seconds(4)), .retry(after: .seconds(4))])

        #expect(machine.roundSucceeded(.push) == .reportRecovered)
        #expect(machine.roundSucceeded(.push) == .proceed)
        #expect(machine.failed(.push, .other, cancelled: false) == .retry(after: .seconds(1)))
        // The pull loop's count is its own.
        #expect(machine.failed(.pull, .other, cancelled: false) == .retry(after: .seconds(4)))
    }

    @Test("the pull loop long-polls, except right after a failure")
    func pullWaitAfterFailure() {
        var machine = Self.running()
        #expect(machine.pullWait == 25)
        _ = machine.failed(.pull, .other, cancelled: false)
        #expect(machine.pullWait == 0)
        // A failing push does not shorten the long poll.
        _ = machine.roundSucceeded(.pull)
        _ = machine.failed(.push, .other, cancelled: false)
        #expect(machine.pullWait == 25)
    }

    @Test("a 401 is announced once, both loops wait for retryNow, and the backoff starts over")
    func refusedTokenWaitsForRetryNow() {
        var machine = Self.running(SyncRetryPolicy(first: .seconds(1), longest: .seconds(30)))
        _ = machine.failed(.push, .other, cancelled: false)
        _ = machine.failed(.push, .other, cancelled: false)
        #expect(machine.failed(.push, .unauthorized, cancelled: false) == .waitForRetryNow(announce: true))
        #expect(machine.failed(.pull, .unauthorized, cancelled: false) == .waitForRetryNow(announce: false))
        #expect(machine.keepsWaitingForToken(cancelled: false))
        #expect(!machine.keepsWaitingForToken(cancelled: true))

        machine.retryNow()
        #expect(!machine.keepsWaitingForToken(cancelled: false))
        #expect(machine.failed(.push, .other, cancelled: false) == .retry(after: .seconds(1)))
        // Refused again after the retry: announced again.
        #expect(machine.failed(.pull, .unauthorized, cancelled: false) == .waitForRetryNow(announce: true))
    }

    @Test("stop() ends both loops, also one waiting for a refused token; start() again runs them")
    func stopEndsBothLoops() {
        var machine = Self.running()
        let startedTwice = machine.start()
        #expect(!startedTwice)
        #expect(machine.shouldContinue(cancelled: false))
        _ = machine.failed(.pull, .unauthorized, cancelled: false)
        machine.stop()
        #expect(!machine.shouldContinue(cancelled: false))
        #expect(!machine.keepsWaitingForToken(cancelled: false))
        #expect(machine.failed(.push, .other, cancelled: false) == .finish)
        #expect(machine.failed(.pull, .unauthorized, cancelled: false) == .finish)

        let restarted = machine.start()
        #expect(restarted)
        #expect(machine.shouldContinue(cancelled: false))
        // A loop task cancelled on its own ends too.
        #expect(!machine.shouldContinue(cancelled: true))
        #expect(machine.failed(.pull, .other, cancelled: true) == .finish)
    }

    @Test("start() after stop() starts the backoff over")
    func restartResetsFailures() {
        var machine = Self.running(SyncRetryPolicy(first: .seconds(1), longest: .seconds(30)))
        _ = machine.failed(.push, .other, cancelled: false)
        _ = machine.failed(.push, .other, cancelled: false)
        machine.stop()
        let restarted = machine.start()
        #expect(restarted)
        #expect(machine.failed(.push, .other, cancelled: false) == .retry(after: .seconds(1)))
    }
}
