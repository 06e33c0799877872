import Foundation
@testable import SwiduxSync
import SwiduxSyncWire
import Testing

/// A push round's order rules as values: no server, no outbox.
@Suite struct PushStateMachineTests {
    static func mutation(_ id: Int64, bytes: Int = 10) -> PendingMutation {
        PendingMutation(id: id, payload: Data(repeating: UInt8(ascii: "x"), count: bytes), throughSequence: id)
    }

    static func answer(_ ids: [Int64], scope: String? = "s") -> PushAnswer {
        PushAnswer(PushResponse(lastMutationID: ids.last ?? 0, results: [], acknowledged: ids, scope: scope))
    }

    @Test("nothing pending: one small request is built and the round ends")
    func idleRound() {
        var round = PushStateMachine(unversionedThrough: 7, firstRequestBytes: 100, requestBytes: 400)
        #expect(round.start() == .prepareFirst(acknowledging: nil, requestBytes: 100, unversionedThrough: 7))
        #expect(round.prepared([]) == .finish(acknowledging: nil))
    }

    @Test("a pipeline: each answer is acknowledged while the next request is in flight, the last one at the end")
    func pipeline() {
        let first = [Self.mutation(1)], second = [Self.mutation(2), Self.mutation(3)]
        var round = PushStateMachine(unversionedThrough: 7)
        _ = round.start()
        // The next request is built while the last group of this one is in flight.
        #expect(round.prepared(first) == .sendPush(group: first, acknowledging: nil,
                                                    prepareNext: .init(inFlight: first, unversionedThrough: 7)))
        let answered1 = PushStateMachine.Answered(answer: Self.answer([1]), sent: first)
        #expect(round.pushAnswered(answered1.answer, sentScope: "s", upcoming: second)
            == .sendPush(group: second, acknowledging: answered1, prepareNext: .init(inFlight: second, unversionedThrough: 7)))
        // Nothing built meanwhile: the round looks at the outbox again, after acknowledging.
        let answered2 = PushStateMachine.Answered(answer: Self.answer([2, 3]), sent: second)
        #expect(round.pushAnswered(answered2.answer, sentScope: "s", upcoming: [])
            == .prepareFirst(acknowledging: answered2, requestBytes: SyncProtocol.maxBodyBytes / 16, unversionedThrough: 7))
        #expect(round.prepared([]) == .finish(acknowledging: nil))
    }

    @Test("a request larger than a body is sent as several, the next built only while the last is in flight")
    func groups() {
        // Two fit in a body (half the server's limit), the third does not.
        let big = (1...3).map { Self.mutation($0, bytes: SyncProtocol.maxBodyBytes / 5) }
        var round = PushStateMachine(unversionedThrough: 0)
        _ = round.start()
        guard case .sendPush(let group1, nil, nil) = round.prepared(big) else { Issue.record("expected a first group"); return }
        let action = round.pushAnswered(Self.answer(group1.map(\.id)), sentScope: "s", upcoming: [])
        guard case .sendPush(let group2, let acknowledging?, let next?) = action else { Issue.record("expected the last group: \(action)"); return }
        #expect(acknowledging.sent == group1)
        #expect(group1 == Array(big[0..<2]))
        #expect(group2 == [big[2]])
        #expect(next.inFlight == big)
        #expect(round.pushAnswered(Self.answer(group2.map(\.id)), sentScope: "s", upcoming: [])
            == .prepareFirst(acknowledging: .init(answer: Self.answer(group2.map(\.id)), sent: group2),
                             requestBytes: SyncProtocol.maxBodyBytes / 16, unversionedThrough: 0))
    }

    @Test("a 409 conflict takes a new client id, a scope change rebases; either starts over from the outbox, forgetting what was built meanwhile")
    func refusals() {
        let first = [Self.mutation(1)], built = [Self.mutation(2)]
        var round = PushStateMachine(unversionedThrough: 9)
        _ = round.start()
        _ = round.prepared(first)
        #expect(round.refused(.mutationConflict, message: "copied") == .reidentify(message: "copied"))
        // The mark no longer holds once the outbox was rewritten.
        #expect(round.repaired() == .prepareFirst(acknowledging: nil, requestBytes: SyncProtocol.maxBodyBytes / 16, unversionedThrough: 0))
        _ = round.prepared(first)
        _ = round.pushAnswered(Self.answer([1]), sentScope: "s", upcoming: built)
        #expect(round.refused(.scopeChanged, message: "replaced") == .rebase(message: "replaced", reported: true))
        #expect(round.repaired() == .prepareFirst(acknowledging: nil, requestBytes: SyncProtocol.maxBodyBytes / 16, unversionedThrough: 0))
    }

    @Test("an answer of another scope is not acknowledged: the file rebases, without reporting it")
    func answerOfAnotherScope() {
        let first = [Self.mutation(1)]
        var round = PushStateMachine(unversionedThrough: 0)
        _ = round.start()
        _ = round.prepared(first)
        #expect(round.pushAnswered(Self.answer([1], scope: "other"), sentScope: "s", upcoming: [])
            == .rebase(message: nil, reported: false))
        #expect(round.repaired() == .prepareFirst(acknowledging: nil, requestBytes: SyncProtocol.maxBodyBytes / 16, unversionedThrough: 0))
        // No scope known on either side: nothing to compare.
        _ = round.prepared(first)
        #expect(round.pushAnswered(Self.answer([1], scope: nil), sentScope: "s", upcoming: [])
            == .prepareFirst(acknowledging: .init(answer: Self.answer([1], scope: nil), sent: first),
                             requestBytes: SyncProtocol.maxBodyBytes / 16, unversionedThrough: 0))
    }

    @Test("413: a single mutation has its largest change set aside; a request of several keeps the error")
    func tooLarge() {
        let one = [Self.mutation(1)]
        var round = PushStateMachine(unversionedThrough: 0)
        _ = round.start()
        _ = round.prepared(one)
        #expect(round.tooLarge(message: "big") == .setAsideLargest(one[0], message: "big"))
        _ = round.repaired()
        _ = round.prepared([Self.mutation(1), Self.mutation(2)])
        #expect(round.tooLarge(message: "big") == nil)
    }

    @Test("a server refusing every time ends the round after the limit, still acknowledging what it answered")
    func refusalLimit() {
        var round = PushStateMachine(unversionedThrough: 0)
        _ = round.start()
        var action = round.prepared([Self.mutation(1)])
        var refusals = 0
        while case .sendPush = action {
            _ = round.refused(.mutationConflict, message: "again")
            refusals += 1
            action = round.repaired()
            if case .prepareFirst = action { action = round.prepared([Self.mutation(1)]) }
        }
        #expect(refusals == PushStateMachine.refusalLimit)
        #expect(action == .finish(acknowledging: nil))
    }
}
