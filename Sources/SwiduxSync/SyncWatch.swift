import Foundation

/// What a ``SyncClient``'s long poll also watches: the other spaces of its user
/// (``SyncSpaces``), each with the cursor its own client holds. The server ends the poll as
/// soon as one of them has news (or the user's spaces change); `polled` then pulls them.
struct SyncWatch: Sendable {
    /// The query items naming the watched spaces and their cursors.
    let items: @Sendable () async -> [URLQueryItem]
    /// Called after every long poll of the watching client ends.
    let polled: @Sendable () async -> Void
}

extension SyncClient {
    /// Makes this client's long polls watch other spaces too (``SyncWatch``).
    func setWatch(_ watch: SyncWatch?) {
        self.watch = watch
    }

    /// The pull cursor of this client's space.
    nonisolated func storedCursor() throws -> Int64 {
        try engine.cursor()
    }

    /// Pulls what the server has now (no wait), with the conflicts this client's values met,
    /// and reports it on ``events`` like continuous sync; a failure is logged and reported, and
    /// the next call tries again.
    func pullOnce() async {
        do {
            try await declareTables()
            let applied = try await pull(wait: 0) + refillColumns()
            let conflicts = try await fetchConflicts()
            if applied > 0 || !conflicts.isEmpty {
                var report = SyncReport()
                report.pulled = applied
                report.parked = try local { try engine.parkedCount() }
                report.conflicts = conflicts
                reportEvent(.synced(report))
            }
        } catch {
            reportEvent(.failed((error as? ServerBusy)?.syncError ?? error as? SyncError ?? .local(error), retryingIn: .zero))
        }
    }
}
