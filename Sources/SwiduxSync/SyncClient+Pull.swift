import Foundation
import SwiduxSyncWire

/// Pulling pages: one pull at a time, each page written in one local transaction.
extension SyncClient {
    /// Pulls pages until the server has no more (the first one waiting up to `wait`
    /// seconds for a change); returns the rows applied. A page whose request overlapped a
    /// push is discarded and pulled again: skipping rows with a local change is only right
    /// when the server produced the page before any of those changes reached it.
    func pull(wait: Int) async throws -> Int {
        try await pulling.withLock { try await pullPages(wait: wait) }
    }

    /// Performs what a ``PullStateMachine`` asks for until the server has no more (holding
    /// `pulling`; `exclusive` only to read the cursor and to write a page).
    func pullPages(wait: Int) async throws -> Int {
        var pull = PullStateMachine(wait: wait, pageSize: pageSize)
        // The next page, asked for while this one is written (a first pull waited for each
        // page's request after writing the one before); `pull` says when it fits.
        var ahead: Task<PullResponse, any Error>?
        defer { ahead?.cancel() }
        while !Task.isCancelled {
            let request = try await exclusive.withLock {
                let cursor = try local { try engine.cursor() }
                return pull.nextRequest(cursor: cursor, ticket: machine.pageRequested(), ownVersions: &ownVersions)
            }
            let page: PullResponse
            switch request {
            case .usePrefetched:
                guard let prefetched = ahead else { preconditionFailure("no page was asked for ahead") }
                ahead = nil
                page = try await prefetched.value
            case .request(let after, let limit, let wait):
                ahead?.cancel()
                ahead = nil
                let watched = wait > 0 ? await watch?.items() ?? [] : []
                page = try await Self.pullPage(transport, after: after, limit: limit, wait: wait, also: watched)
            }
            let applied = try await exclusive.withLock { () throws -> Int in
                let pushRound = machine.pageArrived(pull.inFlight)
                let storedScope = page.scope == nil ? nil : try local { try engine.scope() }
                switch pull.pageArrived(page, pushRound: pushRound, storedScope: storedScope, ownVersions: &ownVersions) {
                case .discardPage:
                    return 0
                case .rebase(let stored, let server):
                    logger.warning("Swidux sync: the server's scope changed (\(stored) → \(server)): syncing as for the first time")
                    try local { try engine.rebase() }
                    pullRebases += 1
                    machine.scopeChanged()
                    return 0
                case .resetCursor(let cursor, let end):
                    logger.warning("Swidux sync: the cursor \(cursor) is past the server's end \(end): pulling everything again")
                    try local { try engine.resetCursor() }
                    return 0
                case .applyPage(let next, let prefetchAfter):
                    if let after = prefetchAfter {
                        let transport = transport, limit = pageSize
                        ahead = Task.detached { try await Self.pullPage(transport, after: after, limit: limit, wait: 0) }
                    }
                    let result = try local { try engine.apply(page, cursor: next) }
                    if let mark = page.conflicts { conflictMark = max(conflictMark, mark) }
                    return result.applied
                }
            }
            if case .finish(let total) = pull.pageDone(rows: applied) { return total }
        }
        return pull.appliedRows
    }

    /// `GET /v1/pull` after `cursor` (with `also`: the query items of other spaces watched).
    static func pullPage(_ transport: SyncTransport, after cursor: Int64, limit: Int, wait: Int,
                                 also: [URLQueryItem] = []) async throws -> PullResponse {
        try await transport.send(
            "GET", SyncProtocol.pullPath,
            query: [URLQueryItem(name: "after", value: String(cursor)),
                    URLQueryItem(name: "limit", value: String(limit)),
                    URLQueryItem(name: "wait", value: String(wait))] + also,
            timeout: TimeInterval(wait + 30), reading: WireReader.pullResponse)
    }
}
