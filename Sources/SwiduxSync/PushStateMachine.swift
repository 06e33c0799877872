import SwiduxSyncWire

/// One push round of a ``SyncClient`` as a value: what to send, acknowledge, build or repair
/// next, given what the server answered. The client performs the actions (the outbox, the
/// network) and feeds back the results; the order rules live here, testable without either.
///
/// The round is a pipeline (a first push that waited for the server, then built the next
/// request, then sent it was slow): while a request is in flight, the answer before it is
/// acknowledged and the next request built. Local transactions keep their order: an answer
/// is acknowledged before anything else is built or refused, and the last one before the
/// round ends.
///
/// ```swift
/// var round = PushStateMachine(unversionedThrough: mark)
/// var action = round.start()                  // .prepareFirst(...)
/// action = round.prepared(pending)            // .sendPush(...), or .finish when nothing is pending
/// action = round.pushAnswered(answer, sentScope: scope, upcoming: next)
/// ```
struct PushStateMachine {
    /// An answer not acknowledged yet, with the mutations it answers.
    struct Answered: Equatable {
        let answer: PushAnswer
        let sent: [PendingMutation]
    }

    /// While a request is in flight, build the next one: stored mutations after `inFlight`,
    /// else new ones from the outbox without their rows.
    struct PrepareNext: Equatable {
        let inFlight: [PendingMutation]
        let unversionedThrough: Int64
    }

    enum Action: Equatable {
        /// Acknowledge `acknowledging`, then build a request from the outbox and report it
        /// with ``prepared(_:)``. The first request of a pipeline is small: the server starts
        /// applying sooner, while the client builds the next, larger one.
        case prepareFirst(acknowledging: Answered?, requestBytes: Int, unversionedThrough: Int64)
        /// Send `group`; while it is in flight, acknowledge `acknowledging` and (when asked)
        /// build the next request; then report with ``pushAnswered(_:sentScope:upcoming:)``,
        /// ``refused(_:message:)`` or ``tooLarge(message:)``.
        case sendPush(group: [PendingMutation], acknowledging: Answered?, prepareNext: PrepareNext?)
        /// The server knows this file's mutation ids with another content (a copied file):
        /// take a new client id, then ``repaired()``.
        case reidentify(message: String)
        /// The server is of another scope: queue every row for a first sync, then
        /// ``repaired()``. `reported`: the round's acknowledgement says so.
        case rebase(message: String?, reported: Bool)
        /// The server refused `mutation` as too large: set its largest change aside, then
        /// ``repaired()``.
        case setAsideLargest(PendingMutation, message: String)
        /// Acknowledge `acknowledging`; the round is over.
        case finish(acknowledging: Answered?)
    }

    /// At most this many refusals in a round (each is followed by a repair and a new try):
    /// a server that refuses every time does not hold the client forever.
    static let refusalLimit = 1000

    private enum State {
        case idle
        /// The first request of a pipeline is being built.
        case preparing
        /// `groups[index]` is in flight; `pending` are all the round's current mutations.
        case sending(pending: [PendingMutation], groups: [[PendingMutation]], index: Int)
        /// A refusal is being repaired.
        case repairing
        case finished
    }

    private var state = State.idle
    private var refusals = 0
    /// ``SyncEngine/unversionedMark()`` read at the round's start; a refusal's repair
    /// rewrites the outbox, so from then on it no longer holds (0: unknown).
    private var unversioned: Int64
    /// The request built while the last one was in flight, sent next.
    private var prepared: [PendingMutation]?
    private var answered: Answered?
    /// The size of a pipeline's first request: small, so that the server starts applying
    /// while the client builds the next.
    let firstRequestBytes: Int
    /// The size of a request built while another is in flight. By default 4 MiB, a quarter
    /// of the server's limit (with 8 MiB a first push of 100,000 rows peaked at 150–160 MiB
    /// and took 3 % longer; with 2 MiB the client's CPU grew by a tenth).
    let requestBytes: Int
    /// The most rows in a request built while another is in flight. Updates of one column
    /// are small: 4 MiB of them were 36,000 rows, and so coarse a pipeline left the server
    /// waiting for the second request and the last one applied and acknowledged alone (a push
    /// of 100,000 one-column updates took 15 % longer than with 16,384 rows; rows pushed whole
    /// fill 4 MiB with about 15,000).
    let requestRows: Int

    init(unversionedThrough: Int64, firstRequestBytes: Int = SyncProtocol.maxBodyBytes / 16,
         requestBytes: Int = SyncProtocol.maxBodyBytes / 4, requestRows: Int = 16_384) {
        unversioned = unversionedThrough
        self.firstRequestBytes = firstRequestBytes
        self.requestBytes = requestBytes
        self.requestRows = requestRows
    }

    mutating func start() -> Action {
        guard case .idle = state else { preconditionFailure("a push round started twice") }
        return nextRequest()
    }

    /// The request ``Action/prepareFirst(acknowledging:requestBytes:unversionedThrough:)`` asked for.
    mutating func prepared(_ pending: [PendingMutation]) -> Action {
        guard case .preparing = state else { preconditionFailure("prepared() while not preparing") }
        return send(pending)
    }

    /// The server answered the request in flight; `upcoming` is the request built meanwhile
    /// (empty when none was asked for, or nothing was left to build).
    mutating func pushAnswered(_ answer: PushAnswer, sentScope: String?, upcoming: [PendingMutation]) -> Action {
        guard case .sending(let pending, let groups, let index) = state else { preconditionFailure("an answer while nothing is in flight") }
        if let serverScope = answer.scope, let sentScope, serverScope != sentScope {
            // A server that checks the scope refuses such a push instead; be safe anyway.
            return refusal(.rebase(message: nil, reported: false))
        }
        answered = Answered(answer: answer, sent: groups[index])
        // Built from the outbox as it was: nothing built means look again (a change made
        // meanwhile) with a fresh first request.
        if !upcoming.isEmpty { prepared = upcoming }
        if index + 1 < groups.count {
            return sendGroup(pending: pending, groups: groups, index: index + 1)
        }
        return nextRequest()
    }

    /// The server refused the request in flight with a coded 409.
    mutating func refused(_ code: SyncErrorBody.Code, message: String) -> Action {
        guard case .sending = state else { preconditionFailure("a refusal while nothing is in flight") }
        switch code {
        case .mutationConflict: return refusal(.reidentify(message: message))
        case .scopeChanged: return refusal(.rebase(message: message, reported: true))
        }
    }

    /// The server refused the request in flight as too large (413). Nil when it holds more
    /// than one mutation: not expected (requests stay under the limit), so the error stands.
    mutating func tooLarge(message: String) -> Action? {
        guard case .sending(_, let groups, let index) = state else { preconditionFailure("a refusal while nothing is in flight") }
        guard groups[index].count == 1 else { return nil }
        return refusal(.setAsideLargest(groups[index][0], message: message))
    }

    /// The repair a refusal asked for is done: the round starts over from the outbox.
    mutating func repaired() -> Action {
        guard case .repairing = state else { preconditionFailure("repaired() while not repairing") }
        return nextRequest()
    }

    // MARK: - Steps

    private mutating func refusal(_ repair: Action) -> Action {
        refusals += 1
        unversioned = 0
        // A request built while the refused one was in flight was built on the old state.
        prepared = nil
        state = .repairing
        return repair
    }

    /// The top of the round: the request built meanwhile, else a first one; or the end.
    private mutating func nextRequest() -> Action {
        if refusals >= Self.refusalLimit { return finish() }
        if let next = prepared {
            prepared = nil
            return send(next)
        }
        state = .preparing
        defer { answered = nil }
        return .prepareFirst(acknowledging: answered, requestBytes: firstRequestBytes, unversionedThrough: unversioned)
    }

    private mutating func send(_ pending: [PendingMutation]) -> Action {
        if pending.isEmpty { return finish() }
        return sendGroup(pending: pending, groups: SyncEngine.requests(pending), index: 0)
    }

    private mutating func sendGroup(pending: [PendingMutation], groups: [[PendingMutation]], index: Int) -> Action {
        state = .sending(pending: pending, groups: groups, index: index)
        defer { answered = nil }
        // The next request is built while the round's last group is in flight.
        let next = index == groups.count - 1 ? PrepareNext(inFlight: pending, unversionedThrough: unversioned) : nil
        return .sendPush(group: groups[index], acknowledging: answered, prepareNext: next)
    }

    private mutating func finish() -> Action {
        state = .finished
        defer { answered = nil }
        return .finish(acknowledging: answered)
    }
}
