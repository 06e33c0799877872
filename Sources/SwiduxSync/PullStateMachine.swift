import SwiduxSyncWire

/// One pull of a ``SyncClient`` (pages until the server has no more) as a value: which page
/// to ask for, whether the page asked for ahead fits, and what to do with a page that
/// arrived. The client performs the actions (requests, the file) and feeds back results.
///
/// ```swift
/// var pull = PullStateMachine(wait: 25, pageSize: 1000)
/// let request = pull.nextRequest(cursor: cursor, ticket: ticket, ownVersions: &own)   // .request(after:limit:wait:)
/// let action = pull.pageArrived(page, pushRound: .applyPage, storedScope: scope, ownVersions: &own)
/// ```
struct PullStateMachine {
    /// How to get the next page.
    enum RequestAction: Equatable {
        /// The page asked for ahead starts at the stored cursor and no push round ran
        /// since: wait for it.
        case usePrefetched
        /// Ask for a page (dropping any page asked for ahead).
        case request(after: Int64, limit: Int, wait: Int)
    }

    /// What to do with a page that arrived.
    enum PageAction: Equatable {
        /// A push round ran while it was on its way: pull again.
        case discardPage
        /// The cursor belongs to another scope (another space's token, a replaced server
        /// database): queue every row for a first sync, then pull again.
        case rebase(stored: String, server: String)
        /// The cursor is past the server's end: pull everything again from 0.
        case resetCursor(cursor: Int64, end: Int64)
        /// Write the page, storing `cursor`. `prefetchAfter`: first ask for the page after
        /// it, so that the request overlaps the write.
        case applyPage(cursor: Int64, prefetchAfter: Int64?)
    }

    /// After a page was written or dropped.
    enum Next: Equatable {
        case pullAgain
        case finish(applied: Int)
    }

    let pageSize: Int
    /// The first request's wait at the server for a change; later ones do not wait.
    private var wait: Int
    private var applied = 0
    /// The request in flight: its cursor and ticket.
    private var requested: (cursor: Int64, ticket: SyncStateMachine.PageTicket)?
    /// The page asked for ahead: the cursor it starts after and its ticket.
    private var prefetched: (after: Int64, ticket: SyncStateMachine.PageTicket)?
    private var hasMore = false

    init(wait: Int, pageSize: Int) {
        self.wait = wait
        self.pageSize = pageSize
    }

    /// The next page after the stored `cursor`, `ticket` taken now.
    mutating func nextRequest(cursor: Int64, ticket: SyncStateMachine.PageTicket, ownVersions: inout OwnVersions) -> RequestAction {
        requested = (cursor, ticket)
        // Own versions ahead: first ask for one row; when it is already one of them,
        // nothing else lies before them and the cursor jumps past them.
        let probe = ownVersions.probe(after: cursor)
        let ahead = prefetched
        prefetched = nil
        if let ahead, ahead.after == cursor, ahead.ticket == ticket, !probe, wait == 0 {
            return .usePrefetched
        }
        return .request(after: cursor, limit: probe ? 1 : pageSize, wait: wait)
    }

    /// The page arrived; `pushRound` says whether a push round ran since it was asked for
    /// (checked holding the lock push rounds hold), `storedScope` is the file's (read when
    /// the page names one).
    mutating func pageArrived(_ page: PullResponse, pushRound: SyncStateMachine.PageAction, storedScope: String?,
                              ownVersions: inout OwnVersions) -> PageAction {
        guard let (cursor, ticket) = requested else { preconditionFailure("a page arrived that was not asked for") }
        requested = nil
        hasMore = true
        // Whatever comes next is pulled at once: the wait was for the first page only.
        wait = 0
        if pushRound == .discardPage { return .discardPage }
        if let scope = page.scope, let storedScope, scope != storedScope {
            ownVersions.removeAll()
            return .rebase(stored: storedScope, server: scope)
        }
        if let end = page.end, cursor > end {
            ownVersions.removeAll()
            return .resetCursor(cursor: cursor, end: end)
        }
        // Every version up to the page's last one was seen: an own range it reached is
        // skipped whole.
        let next = ownVersions.cursor(after: page)
        hasMore = next > page.cursor || page.hasMore
        let prefetch = page.hasMore && next == page.cursor && !ownVersions.probe(after: page.cursor)
        if prefetch { prefetched = (page.cursor, ticket) }
        return .applyPage(cursor: next, prefetchAfter: prefetch ? page.cursor : nil)
    }

    /// The page of ``PageAction/applyPage(cursor:prefetchAfter:)`` was written (`rows`
    /// applied), or another action performed (`rows` 0).
    mutating func pageDone(rows: Int) -> Next {
        applied += rows
        return hasMore ? .pullAgain : .finish(applied: applied)
    }

    /// The ticket of the request in flight, for ``SyncStateMachine/pageArrived(_:)``.
    var inFlight: SyncStateMachine.PageTicket {
        guard let requested else { preconditionFailure("no page was asked for") }
        return requested.ticket
    }

    /// The rows applied so far (a cancelled pull returns them).
    var appliedRows: Int { applied }
}
