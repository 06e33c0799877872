import Foundation
import Testing
@testable import Swidux

/// A state that keeps the ids its reducer makes.
struct Minted: Equatable, Sendable {
    var ids: [UUID] = []
    var times: [Date] = []

    static var fingerprint: StateFingerprint<Minted> { StateFingerprint<Minted>().field(\.ids).field(\.times) }
}

enum MintAction: Codable, Equatable, Sendable {
    case mint
}

/// The reducer's time and ids, and what happens on other threads while it reduces.
struct MintEnvironment: Sendable {
    var values: SessionValues
    /// Runs during the reduce, before the reducer reads `values`.
    var meanwhile: @Sendable () -> Void = {}
}

struct MintReducer: SwiduxReducer {
    func reduce(state: inout Minted, action: MintAction, environment: MintEnvironment) -> Effect<MintAction>? {
        environment.meanwhile()
        state.ids.append(environment.values.uuid())
        state.times.append(environment.values.now())
        return nil
    }
}

/// Ids and times another thread took, for the test to look at.
final class OtherThread: @unchecked Sendable {
    private let lock = LockedValue(())
    private var _ids: [UUID] = []
    private var _times: [Date] = []
    var ids: [UUID] { lock.withLock { _ in _ids } }
    var times: [Date] { lock.withLock { _ in _times } }

    /// Takes an id and the time from `values` on another thread, and waits until it has.
    func take(from values: SessionValues) {
        let done = DispatchSemaphore(value: 0)
        Thread {
            let id = values.uuid(), time = values.now()
            self.lock.withLock { _ in self._ids.append(id); self._times.append(time) }
            done.signal()
        }.start()
        done.wait()
    }
}

@MainActor
@Suite("Session values", .timeLimit(.minutes(1)))
struct SessionValuesTests {
    @Test("During a recorded step, another thread gets a random id and the real time; the reducer gets the step's, as in the replay")
    func otherThreadsDuringAStep() async throws {
        let file = try temporaryFolder().appendingPathComponent("session.jsonl")
        let values = SessionValues()
        let other = OtherThread()
        let recorder = try SessionRecorder<Minted, MintAction>(file: file, fingerprint: Minted.fingerprint, values: values)
        // Another thread asks for an id and the time in the middle of each step.
        let environment = MintEnvironment(values: values, meanwhile: { other.take(from: values) })
        let store = Store(initialState: Minted(), reducer: MintReducer(), environment: environment, middleware: [recorder])
        for _ in 0..<3 { store.send(.mint) }
        try await recorder.flush()
        #expect(other.ids.count == 3)
        #expect(Set(other.ids).isDisjoint(with: store.state.ids), "another thread took one of the step's ids")

        // The replay, where nothing else runs, gives the reducer the same ids and times.
        let recording = try SessionRecording<MintAction>(contentsOf: file)
        let replayValues = SessionValues()
        let replay = Store(initialState: Minted(), reducer: MintReducer().ignoringEffects(),
                           environment: MintEnvironment(values: replayValues))
        let replayer = try SessionReplayer(recording: recording, store: replay, fingerprint: Minted.fingerprint, values: replayValues)
        var replayed = 0
        while let step = try replayer.next() {
            #expect(step.matches, "step \(step.step.index): \(step.differingParts)")
            replayed += 1
        }
        #expect(replayed == 3)
        #expect(replay.state == store.state)
    }

    @Test("Outside a step, and on other threads during one, ids are random; on the step's thread they are the step's")
    func stepThreadOnly() async throws {
        let values = SessionValues()
        values.beginStep(4, milliseconds: 1_000)
        let other = OtherThread()
        other.take(from: values)
        let first = values.uuid()
        #expect(values.now() == Date(timeIntervalSince1970: 1))
        #expect(other.times.first != Date(timeIntervalSince1970: 1))
        values.endStep()
        // The same step again makes the same first id, whatever other threads took.
        values.beginStep(4, milliseconds: 1_000)
        #expect(values.uuid() == first)
        values.endStep()
        #expect(other.ids.first != first)
        #expect(values.uuid() != first)
    }
}
