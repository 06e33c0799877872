@testable import SwiduxSync
import Testing

@Suite struct SyncRetryPolicyTests {
    @Test("the default waits double from 0.25 s and stop growing at 30 s")
    func standardDoublesUpToItsLongest() {
        let delays = (1...10).map { SyncRetryPolicy.standard.delay(afterFailures: $0) }
        #expect(delays == [.milliseconds(250), .milliseconds(500), .seconds(1), .seconds(2), .seconds(4),
                           .seconds(8), .seconds(16), .seconds(30), .seconds(30), .seconds(30)])
    }

    @Test("a policy's first wait is its first delay; a longest below first is raised to it")
    func firstAndLongest() {
        let patient = SyncRetryPolicy(first: .seconds(600), longest: .seconds(600))
        #expect(patient.delay(afterFailures: 1) == .seconds(600))
        #expect(patient.delay(afterFailures: 1000) == .seconds(600))
        #expect(SyncRetryPolicy(first: .seconds(5), longest: .seconds(1)).longest == .seconds(5))
        #expect(SyncRetryPolicy(first: .seconds(3), longest: .seconds(10)).delay(afterFailures: 3) == .seconds(10))
    }
}
