import Foundation
import Logging
import PostgresNIO
@testable import SwiduxSyncServer
import SwiduxSyncWire
import Testing

/// Issue 31 item 5: a device's next long poll follows its answer at once. With 2,000 polls
/// on a server, the ~100 polls one push answers came back each with a token check and a
/// page read of its own (too spread out to share a running read), and each answer copied a
/// 1 MiB buffer.
@Suite("Long poll: the next poll after an answer")
struct LongPollRepollTests {
    @Test("the next long polls of 40 pulls one push answered take the token check of their woken polls, not one query each")
    func repollsShareTheirChecks() async throws {
        try await TestServer.with { server in
            let a = try await server.client(space: "home")
            let b = try await server.client(space: "home").with(connections: 48)
            let polls = 40
            let first = try await a.push([todo("1")]).results[0].current.version
            // Counted from before the polls open; no poll stays open past the last push, so no
            // poll's 5 s recheck falls in the count.
            let before = try await settledScans(server)
            try await withThrowingTaskGroup(of: [SyncRow].self) { group in
                for _ in 0..<polls {
                    group.addTask {
                        let answered = try await b.pull(after: first, wait: 60)
                        #expect(answered.rows.map(\.id) == [.text("2")])
                        // At once, as a device does: the next long poll, which waits for the next push.
                        return try await b.pull(after: answered.cursor, wait: 60).rows
                    }
                }
                try await Task.sleep(for: .milliseconds(500))
                _ = try await a.push([todo("2")])
                try await Task.sleep(for: .milliseconds(1000))
                _ = try await a.push([todo("3")])
                for try await rows in group { #expect(rows.map(\.id) == [.text("3")]) }
            }
            // An idle PostgreSQL backend may hold its counts up to 10 s: stopping the server
            // closes its connections, whose backends report them as they exit.
            await server.stop()
            let tokens = try await settledScans(server).tokens - before.tokens
            print("LongPollRepollTests: \(tokens) token checks")
            // The 40 first polls check their token (one query each), the 2 pushes theirs, each
            // wake one shared check; 40 next polls checking alone would add 40.
            #expect(tokens < Int64(polls + polls / 2), "\(tokens) token checks for \(polls) polls, 2 pushes and \(polls) next polls")
        }
    }

    @Test("a page's answer is a buffer of its own size, each answer its own")
    func answerBufferHasItsSize() async throws {
        try await TestServer.with { server in
            let a = try await server.client(space: "home")
            _ = try await a.push([todo("1")])
            let bodies = try await server.cluster.withConnection(database: server.database) { connection, logger in
                var space: Int64 = 0
                for try await id in try await connection.query("SELECT id FROM sync_spaces WHERE name = 'home'", logger: logger)
                    .decode(Int64.self) { space = id }
                let page = try await Pull.page(space: space, after: 0, limit: 1000, bytes: 4 << 20, connection: connection, logger: logger)
                return (page.body(scope: "db/1"), page.body(scope: "db/1"))
            }
            let response = try JSONDecoder().decode(PullResponse.self, from: Data(bodies.0.readableBytesView))
            #expect(response.rows.map(\.id) == [.text("1")])
            #expect(bodies.0 == bodies.1)
            // One row of about 100 bytes: not a buffer of the page's byte bound (it was 1 MiB).
            #expect(bodies.0.capacity < 4096, "an answer of \(bodies.0.readableBytes) bytes holds \(bodies.0.capacity)")
        }
    }

    /// Index and sequential scans of `sync_tokens` and `sync_rows`, once they stop changing
    /// for 2.5 s (a busy backend's counts may come later: see above).
    private func settledScans(_ server: TestServer) async throws -> (tokens: Int64, rows: Int64) {
        var last: (Int64, Int64) = (-1, -1)
        var stableSince = ContinuousClock.now
        while true {
            let now = try await server.cluster.withConnection(database: server.database) { connection, logger in
                var counts: [String: Int64] = [:]
                for try await (name, value) in try await connection.query("""
                    SELECT relname::text, coalesce(seq_scan, 0) + coalesce(idx_scan, 0)
                    FROM pg_stat_user_tables WHERE relname IN ('sync_tokens', 'sync_rows')
                    """, logger: logger).decode((String, Int64).self) { counts[name] = value }
                return (counts["sync_tokens"] ?? 0, counts["sync_rows"] ?? 0)
            }
            if now != last {
                last = now
                stableSince = ContinuousClock.now
            } else if ContinuousClock.now - stableSince >= .milliseconds(2500) {
                return (tokens: now.0, rows: now.1)
            }
            try await Task.sleep(for: .milliseconds(250))
        }
    }
}
