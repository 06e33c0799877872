import Testing
@testable import Swidux

@MainActor
@Suite("MVIStore", .timeLimit(.minutes(1)))
struct MVIStoreTests {
    @Test func synchronousSendLoopIsReportedNotACrash() {
        let errors = Recorder<String>()
        let store = MVIStore<Int, Int, Int>(
            initial: 0,
            reduceIntent: { _, intent in .send(intent) },
            reduceAction: { (state: inout Int, action: Int) -> Effect<Int>? in
                state += 1
                return .send(action)      // loops forever
            },
            onUnexpectedError: { errors.append("\($0)") }
        )
        store.send(1)
        #expect(errors.values.count == 1)
        #expect(errors.values.first?.contains("dispatch loop") == true)
        #expect(store.state == RootBox<Int, Int>.maxSynchronousDepth)
        // Still usable afterwards.
        let finite = MVIStore<Int, Int, Int>(
            initial: 0,
            reduceIntent: { _, intent in .send(intent) },
            reduceAction: { (state: inout Int, action: Int) -> Effect<Int>? in
                state += 1
                return action > 1 ? .send(action - 1) : nil
            }
        )
        finite.send(3)
        #expect(finite.state == 3)
    }
}
