import Foundation
@testable import SwiduxSync
import SwiduxSyncWire
import SwiduxTesting
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

    @Test("randomized rounds (requests of random sizes, answers and 409s in random order): every answer is acknowledged once, in order, by the very next action, and the round ends with the whole outbox acknowledged",
          arguments: [UInt64(1), 2, 3, 4, 5, 6, 7, 8, 9, 10])
    func randomizedRounds(seed: UInt64) {
        var random = SeededRandomNumberGenerator(seed: seed)  // a failing run can be repeated
        let count: Int64 = 60
        // A mutation's size: some requests are cut into several bodies.
        let sizes = (1...count).map { _ in Bool.random(using: &random) ? 10 : SyncProtocol.maxBodyBytes / 5 }
        // The outbox as the client would build it: after what is acknowledged or in flight.
        var nextID: Int64 = 1
        // Nothing built while a request is in flight means nothing new was found then; a
        // first request finds whatever is left.
        func build(_ random: inout SeededRandomNumberGenerator, first: Bool) -> [PendingMutation] {
            let take = Int64.random(in: (first ? 1 : 0)...4, using: &random)
            let ids = nextID..<min(nextID + take, count + 1)
            nextID = ids.upperBound
            return ids.map { Self.mutation($0, bytes: sizes[Int($0) - 1]) }
        }
        var acknowledged: [Int64] = []
        var answered: [PushStateMachine.Answered] = []
        func acknowledge(_ answer: PushStateMachine.Answered?) {
            guard let answer else { return }
            // Each answer once, in the order the server gave them.
            #expect(answer == answered.first)
            if !answered.isEmpty { answered.removeFirst() }
            acknowledged += answer.sent.map(\.id)
        }

        var round = PushStateMachine(unversionedThrough: 0)
        var action = round.start()
        var steps = 0
        var justAnswered: PushStateMachine.Answered?
        loop: while steps < 10_000 {
            steps += 1
            switch action {
            case .prepareFirst(let previous, _, _):
                // An answer is acknowledged before anything else is built.
                #expect(previous == justAnswered)
                acknowledge(previous)
                justAnswered = nil
                action = round.prepared(build(&random, first: true))
            case .sendPush(let group, let previous, let next):
                #expect(previous == justAnswered)
                acknowledge(previous)
                justAnswered = nil
                // Sent in outbox order, right after what was acknowledged or sent before.
                #expect(group.map(\.id) == Array(group[0].id..<(group[0].id + Int64(group.count))))
                if let next { #expect(next.inFlight.suffix(group.count) == group[...]) }
                if Int.random(in: 0..<10, using: &random) == 0 {
                    // Refused: the repair rewrites the outbox, which is built again after
                    // what was acknowledged (the answers before were, while this was in flight).
                    #expect(answered.isEmpty)
                    let code: SyncErrorBody.Code = Bool.random(using: &random) ? .mutationConflict : .scopeChanged
                    _ = round.refused(code, message: "again")
                    nextID = (acknowledged.last ?? 0) + 1
                    action = round.repaired()
                } else {
                    let upcoming = next == nil ? [] : build(&random, first: false)
                    let answer = Self.answer(group.map(\.id))
                    justAnswered = PushStateMachine.Answered(answer: answer, sent: group)
                    answered.append(justAnswered!)
                    action = round.pushAnswered(answer, sentScope: "s", upcoming: upcoming)
                }
            case .finish(let previous):
                #expect(previous == justAnswered)
                acknowledge(previous)
                break loop
            case .reidentify, .rebase, .setAsideLargest:
                Issue.record("a repair without a refusal: \(action)")
                break loop
            }
        }
        #expect(answered.isEmpty)
        #expect(acknowledged == Array(1...count))
    }
}
