import Foundation
@testable import SwiduxSync
import Testing

/// A 429's `Retry-After`, read and honoured by continuous sync's decisions (pure values).
@Suite struct ServerBusyTests {
    @Test("Retry-After: seconds, an HTTP date in each of its three forms, a past date, and what is not a wait; read as asked, unbounded")
    func readsRetryAfter() throws {
        #expect(ServerBusy.retryAfter("5") == .seconds(5))
        #expect(ServerBusy.retryAfter(" 120 ") == .seconds(120))
        #expect(ServerBusy.retryAfter("0") == .zero)
        #expect(ServerBusy.retryAfter("7200") == .seconds(7200))
        #expect(ServerBusy.retryAfter("99999999999999999999") == .seconds(Int64.max))
        let now = try #require(ISO8601DateFormatter().date(from: "2026-10-21T07:27:50Z"))
        #expect(ServerBusy.retryAfter("Wed, 21 Oct 2026 07:28:00 GMT", now: now) == .seconds(10))
        #expect(ServerBusy.retryAfter("Wednesday, 21-Oct-26 07:28:00 GMT", now: now) == .seconds(10))
        #expect(ServerBusy.retryAfter("Wed Oct 21 07:28:00 2026", now: now) == .seconds(10))
        #expect(ServerBusy.retryAfter("Wed, 21 Oct 2026 07:27:00 GMT", now: now) == .zero)
        #expect(ServerBusy.retryAfter("Wed, 21 Oct 2026 09:27:50 GMT", now: now) == .seconds(7200))
        for invalid in ["", "-3", "5s", "1.5", "soon", "Wed, 21 Oct 2026"] {
            #expect(ServerBusy.retryAfter(invalid, now: now) == nil, "\(invalid)")
        }
    }

    @Test("a 429 waits at least its Retry-After, plus up to half again as jitter, in both loops (the pull loop's cap does not apply)")
    func honoursRetryAfter() {
        var machine = SyncStateMachineTests.running()
        #expect(machine.failed(.push, .overLimit(retryAfter: .seconds(5)), cancelled: false, jitter: 0) == .backOff(after: .seconds(5)))
        #expect(machine.failed(.push, .overLimit(retryAfter: .seconds(5)), cancelled: false, jitter: 1) == .backOff(after: .milliseconds(7500)))
        #expect(machine.failed(.pull, .overLimit(retryAfter: .seconds(10)), cancelled: false, jitter: 0.5) == .backOff(after: .milliseconds(12_500)))
        // Out-of-range jitter is clamped: never shorter than asked, never more than half again.
        #expect(machine.failed(.pull, .overLimit(retryAfter: .seconds(10)), cancelled: false, jitter: -4) == .backOff(after: .seconds(10)))
        #expect(machine.failed(.pull, .overLimit(retryAfter: .seconds(10)), cancelled: false, jitter: 9) == .backOff(after: .seconds(15)))
        // A 429 is no refused token: nothing waits for retryNow.
        #expect(!machine.tokenRefused)
    }

    @Test("a Retry-After of zero waits a second: never a tight loop")
    func zeroIsNotATightLoop() {
        var machine = SyncStateMachineTests.running(SyncRetryPolicy(first: .zero, longest: .zero))
        for _ in 0..<5 {
            #expect(machine.failed(.push, .overLimit(retryAfter: .zero), cancelled: false, jitter: 0) == .backOff(after: .seconds(1)))
        }
    }

    @Test("a Retry-After over an hour waits an hour, plus up to half again as jitter: the one upper bound")
    func longestWait() {
        var machine = SyncStateMachineTests.running()
        #expect(machine.failed(.push, .overLimit(retryAfter: .seconds(3600)), cancelled: false, jitter: 0) == .backOff(after: .seconds(3600)))
        #expect(machine.failed(.push, .overLimit(retryAfter: .seconds(7200)), cancelled: false, jitter: 0) == .backOff(after: .seconds(3600)))
        #expect(machine.failed(.pull, .overLimit(retryAfter: .seconds(7200)), cancelled: false, jitter: 1) == .backOff(after: .seconds(5400)))
        #expect(machine.failed(.push, .overLimit(retryAfter: .seconds(Int64.max)), cancelled: false, jitter: 0) == .backOff(after: .seconds(3600)))
    }

    @Test("a 429 without Retry-After takes the usual backoff (the pull loop's capped), with jitter; a success starts it over")
    func withoutRetryAfterBacksOff() {
        var machine = SyncStateMachineTests.running()
        let push = (1...3).map { _ in machine.failed(.push, .overLimit(retryAfter: nil), cancelled: false, jitter: 0) }
        #expect(push == [.backOff(after: .milliseconds(250)), .backOff(after: .milliseconds(500)), .backOff(after: .seconds(1))])
        #expect(machine.failed(.push, .overLimit(retryAfter: nil), cancelled: false, jitter: 1) == .backOff(after: .seconds(3)))
        for _ in 0..<6 { _ = machine.failed(.pull, .overLimit(retryAfter: nil), cancelled: false, jitter: 0) }
        #expect(machine.failed(.pull, .overLimit(retryAfter: nil), cancelled: false, jitter: 0) == .backOff(after: .seconds(4)))
        #expect(machine.roundSucceeded(.push) == .reportRecovered)
        #expect(machine.failed(.push, .overLimit(retryAfter: nil), cancelled: false, jitter: 0) == .backOff(after: .milliseconds(250)))
    }

    @Test("a stopped loop ends on a 429 instead of waiting")
    func stoppedEnds() {
        var machine = SyncStateMachineTests.running()
        machine.stop()
        #expect(machine.failed(.push, .overLimit(retryAfter: .seconds(5)), cancelled: false, jitter: 0) == .finish)
        var running = SyncStateMachineTests.running()
        #expect(running.failed(.pull, .overLimit(retryAfter: .seconds(5)), cancelled: true, jitter: 0) == .finish)
    }
}
