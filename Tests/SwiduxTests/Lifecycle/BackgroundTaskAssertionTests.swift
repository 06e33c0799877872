import Testing
@testable import Swidux

/// Issue 30 item 3: the background flush runs inside a background-task assertion that is
/// begun before the flush starts and ended after it (through an injected assertion).
@MainActor
struct BackgroundTaskAssertionTests {
    @Test func theFlushRunsInsideTheAssertionWhichEndsAfterIt() async {
        let harness = NotesHarness()
        let gate = Gate()
        harness.notes.gate = gate
        harness.store.send(.addNote(1, "written in the background", tag: nil))
        let assertion = BackgroundTaskAssertion { name in
            harness.order.append("begin \(name)")
            return { harness.order.append("end") }
        }

        let task = harness.store.flushInBackgroundTask(assertion)
        // Begun before flushInBackgroundTask returned: iOS cannot suspend the app in between.
        #expect(harness.order.values == ["begin Swidux flush"])
        // While the write is held, the assertion is held too.
        _ = await waitUntil { harness.persistence.isFlushing }
        #expect(!harness.order.values.contains("end"))

        await gate.open()
        await task.value
        #expect(harness.order.values == ["begin Swidux flush", "notes", "end"])
        #expect(harness.notes.stored.map(\.text) == ["written in the background"])
    }

    @Test func aFailedFlushEndsTheAssertionToo() async {
        let harness = NotesHarness()
        harness.notes.failNext(1)
        harness.store.send(.addNote(1, "kept for the retry", tag: nil))
        let ends = Recorder<Int>()
        let assertion = BackgroundTaskAssertion { _ in { ends.append(1) } }

        await harness.store.flushInBackgroundTask(assertion).value
        #expect(ends.values == [1])
    }
}
