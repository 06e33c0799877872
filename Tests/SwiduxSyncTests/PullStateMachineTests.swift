@testable import SwiduxSync
import SwiduxSyncWire
import Testing

/// A pull's decisions as values: no server, no database.
@Suite struct PullStateMachineTests {
    static func page(_ cursor: Int64, hasMore: Bool, end: Int64? = nil, scope: String? = nil) -> PullResponse {
        PullResponse(rows: [], cursor: cursor, hasMore: hasMore, end: end, scope: scope)
    }

    @Test("the first request waits at the server, later ones do not; the pull ends with the last page")
    func waitsOnlyForTheFirstPage() {
        let clients = SyncStateMachine(retry: .standard)
        var own = OwnVersions()
        var pull = PullStateMachine(wait: 25, pageSize: 100)
        #expect(pull.nextRequest(cursor: 0, ticket: clients.pageRequested(), ownVersions: &own) == .request(after: 0, limit: 100, wait: 25))
        // More to come: the next page is asked for ahead, while this one is written.
        #expect(pull.pageArrived(Self.page(10, hasMore: true), pushRound: .applyPage, storedScope: nil, ownVersions: &own)
            == .applyPage(cursor: 10, prefetchAfter: 10))
        #expect(pull.pageDone(rows: 10) == .pullAgain)
        #expect(pull.nextRequest(cursor: 10, ticket: clients.pageRequested(), ownVersions: &own) == .usePrefetched)
        #expect(pull.pageArrived(Self.page(15, hasMore: false), pushRound: .applyPage, storedScope: nil, ownVersions: &own)
            == .applyPage(cursor: 15, prefetchAfter: nil))
        #expect(pull.pageDone(rows: 5) == .finish(applied: 15))
    }

    @Test("a page pulled across a push round is discarded and asked for again without waiting; the page asked for ahead is dropped")
    func pageAcrossAPushRound() {
        var clients = SyncStateMachine(retry: .standard)
        var own = OwnVersions()
        var pull = PullStateMachine(wait: 25, pageSize: 100)
        _ = pull.nextRequest(cursor: 0, ticket: clients.pageRequested(), ownVersions: &own)
        _ = pull.pageArrived(Self.page(10, hasMore: true), pushRound: .applyPage, storedScope: nil, ownVersions: &own)
        _ = pull.pageDone(rows: 10)

        // The prefetched page was asked for before the push round: not used.
        clients.pushBegan()
        clients.pushEnded()
        #expect(pull.nextRequest(cursor: 10, ticket: clients.pageRequested(), ownVersions: &own) == .request(after: 10, limit: 100, wait: 0))
        // This one's request overlaps a round.
        let ticket = pull.inFlight
        clients.pushBegan()
        let pushRound = clients.pageArrived(ticket)
        clients.pushEnded()
        #expect(pushRound == .discardPage)
        #expect(pull.pageArrived(Self.page(20, hasMore: false), pushRound: pushRound, storedScope: nil, ownVersions: &own) == .discardPage)
        #expect(pull.pageDone(rows: 0) == .pullAgain)
        #expect(pull.nextRequest(cursor: 10, ticket: clients.pageRequested(), ownVersions: &own) == .request(after: 10, limit: 100, wait: 0))
        #expect(pull.pageArrived(Self.page(20, hasMore: false), pushRound: .applyPage, storedScope: nil, ownVersions: &own)
            == .applyPage(cursor: 20, prefetchAfter: nil))
        #expect(pull.pageDone(rows: 10) == .finish(applied: 20))
    }

    @Test("the page asked for ahead is used only from the cursor it starts after")
    func prefetchOnlyFromItsCursor() {
        let clients = SyncStateMachine(retry: .standard)
        var own = OwnVersions()
        var pull = PullStateMachine(wait: 0, pageSize: 100)
        _ = pull.nextRequest(cursor: 0, ticket: clients.pageRequested(), ownVersions: &own)
        _ = pull.pageArrived(Self.page(10, hasMore: true), pushRound: .applyPage, storedScope: nil, ownVersions: &own)
        _ = pull.pageDone(rows: 10)
        #expect(pull.nextRequest(cursor: 7, ticket: clients.pageRequested(), ownVersions: &own) == .request(after: 7, limit: 100, wait: 0))
    }

    @Test("another scope rebases, a cursor past the server's end starts over; both pull again and forget own versions")
    func scopeAndEnd() {
        let clients = SyncStateMachine(retry: .standard)
        var own = OwnVersions()
        own.note(50...60)
        var pull = PullStateMachine(wait: 25, pageSize: 100)
        _ = pull.nextRequest(cursor: 0, ticket: clients.pageRequested(), ownVersions: &own)
        #expect(pull.pageArrived(Self.page(10, hasMore: false, scope: "new"), pushRound: .applyPage, storedScope: "old", ownVersions: &own)
            == .rebase(stored: "old", server: "new"))
        #expect(own.ranges.isEmpty)
        #expect(pull.pageDone(rows: 0) == .pullAgain)

        own.note(50...60)
        _ = pull.nextRequest(cursor: 90, ticket: clients.pageRequested(), ownVersions: &own)
        #expect(pull.pageArrived(Self.page(90, hasMore: false, end: 40, scope: "new"), pushRound: .applyPage, storedScope: "new", ownVersions: &own)
            == .resetCursor(cursor: 90, end: 40))
        #expect(own.ranges.isEmpty)
        #expect(pull.pageDone(rows: 0) == .pullAgain)
    }

    @Test("own versions ahead: one row is asked for first, and a page reaching them skips them whole")
    func ownVersionsAhead() {
        let clients = SyncStateMachine(retry: .standard)
        var own = OwnVersions()
        own.note(11...30)
        var pull = PullStateMachine(wait: 0, pageSize: 100)
        #expect(pull.nextRequest(cursor: 0, ticket: clients.pageRequested(), ownVersions: &own) == .request(after: 0, limit: 1, wait: 0))
        // The one row is already one of them: the cursor jumps past them, nothing asked for ahead.
        #expect(pull.pageArrived(Self.page(11, hasMore: true), pushRound: .applyPage, storedScope: nil, ownVersions: &own)
            == .applyPage(cursor: 30, prefetchAfter: nil))
        #expect(pull.pageDone(rows: 1) == .pullAgain)
        #expect(pull.nextRequest(cursor: 30, ticket: clients.pageRequested(), ownVersions: &own) == .request(after: 30, limit: 100, wait: 0))
    }
}
