import Foundation
import PostgresNIO
import SwiduxSyncWire
import Testing

/// Issue 31 item 5: a push that wakes many long polls of its space costs a few queries, not
/// a few per poll (with 2,000 polls on a server, one query per poll and push was the limit).
@Suite("Long poll: shared reads")
struct LongPollSharingTests {
    @Test("one push wakes 40 waiting pulls of its space with a few reads of the rows table, not one or more per pull")
    func wakesWithSharedReads() async throws {
        try await TestServer.with { server in
            let a = try await server.client(space: "home")
            let b = try await server.client(space: "home").with(connections: 48)
            let polls = 40
            try await withThrowingTaskGroup(of: [SyncRow].self) { group in
                for _ in 0..<polls { group.addTask { try await b.pull(after: 0, wait: 60).rows } }
                // Every poll is waiting, and the reads before their wait are counted.
                try await Task.sleep(for: .milliseconds(500))
                let before = try await settledScans(server)
                try await a.push([todo("1")])
                for try await rows in group { #expect(rows.map(\.id) == [.text("1")]) }
                let reads = try await settledScans(server) - before
                // The push itself reads the table a few times; 40 pulls reading alone would add 80.
                #expect(reads < Int64(polls) / 2, "\(reads) scans of sync_rows for one push and \(polls) woken pulls")
            }
        }
    }

    /// Scans of `sync_rows` (sequential + index) in PostgreSQL's statistics, once they stop
    /// changing: each server connection reports its counts when it goes idle, within about 1 s.
    private func settledScans(_ server: TestServer) async throws -> Int64 {
        var last: Int64 = -1
        var stableSince = ContinuousClock.now
        while true {
            let now = try await server.cluster.withConnection(database: server.database) { connection, logger in
                var total: Int64 = 0
                for try await value in try await connection.query(
                    "SELECT coalesce(seq_scan, 0) + coalesce(idx_scan, 0) FROM pg_stat_user_tables WHERE relname = 'sync_rows'",
                    logger: logger
                ).decode(Int64.self) { total = value }
                return total
            }
            if now != last {
                last = now
                stableSince = ContinuousClock.now
            } else if ContinuousClock.now - stableSince >= .milliseconds(2500) {
                return now
            }
            try await Task.sleep(for: .milliseconds(250))
        }
    }
}
