import Foundation
import Synchronization
import PostgresNIO
import SwiduxSyncWire
import Testing

@Suite("Fairness")
struct FairnessTests {
    /// Issue 29 item 10: 30 concurrent big pushes into space A held every pool connection
    /// while they waited for A's lock, and a pull in space B waited 17-29 s. Now a push
    /// waits for its space's earlier pushes before it takes a connection: while A's pushes
    /// queue, no database session waits on A's advisory lock, and B's pulls answer.
    /// `SWIDUX_BUSY_PUSHES` (default 30) pushes of `SWIDUX_BUSY_ROWS` (default 200) rows.
    @Test("a busy space's waiting pushes hold no pool connection; another space's pull answers", .timeLimit(.minutes(3)))
    func busySpaceDoesNotStarveOthers() async throws {
        let environment = ProcessInfo.processInfo.environment
        let pushes = Int(environment["SWIDUX_BUSY_PUSHES"] ?? "") ?? 30
        let rows = Int(environment["SWIDUX_BUSY_ROWS"] ?? "") ?? 200
        try await TestServer.with { server in
            let a = try await server.client(space: "busy").with(connections: pushes + 4)
            let b = try await server.client(space: "quiet").with(connections: 4)
            try await b.push([todo("b1")])
            let idleStart = ContinuousClock.now
            #expect(try await b.pull().rows.count == 1)
            let idle = ContinuousClock.now - idleStart

            let bodies = try (0..<pushes).map { push in
                try JSONEncoder().encode(PushRequest(clientID: "pusher-\(push)", mutations: [
                    SyncMutation(id: 1, changes: (0..<rows).map { todo("p\(push)-\($0)") }),
                ]))
            }
            let pending = Pending(pushes)
            var maxWaiting = 0
            var underLoad: [Duration] = []
            try await withThrowingTaskGroup(of: Int.self) { group in
                for body in bodies {
                    group.addTask {
                        defer { pending.done() }
                        return try await a.pushAnswer(body).status
                    }
                }
                try await server.cluster.withConnection(database: server.database) { connection, logger in
                    while pending.count > 0 {
                        for try await waiting in try await connection.query("""
                            SELECT count(*) FROM pg_stat_activity
                            WHERE datname = current_database() AND wait_event_type = 'Lock' AND wait_event = 'advisory'
                            """, logger: logger).decode(Int64.self) { maxWaiting = max(maxWaiting, Int(waiting)) }
                        if pending.count > 2 {
                            let started = ContinuousClock.now
                            #expect(try await b.pull().rows.count == 1)
                            if pending.count > 2 { underLoad.append(ContinuousClock.now - started) }
                        }
                        try await Task.sleep(for: .milliseconds(50))
                    }
                }
                for try await status in group { #expect(status == 200) }
            }
            underLoad.sort()
            let p95 = underLoad.isEmpty ? nil : underLoad[min(underLoad.count - 1, underLoad.count * 95 / 100)]
            print("fairness: B's pull idle \(idle), under A's load p95 \(p95.map { "\($0)" } ?? "-") over \(underLoad.count) pulls; "
                  + "sessions waiting on A's advisory lock: at most \(maxWaiting)")
            #expect(maxWaiting == 0, "\(maxWaiting) database sessions waited on the busy space's lock")
            #expect(!underLoad.isEmpty, "B's pull answered while A's pushes were pending")
            #expect(try await server.storedRows().count == pushes * rows + 1)
        }
    }
}

/// How many requests are still pending.
final class Pending: Sendable {
    private let value: Mutex<Int>
    init(_ value: Int) { self.value = Mutex(value) }
    var count: Int { value.withLock { $0 } }
    func done() { value.withLock { $0 -= 1 } }
}
