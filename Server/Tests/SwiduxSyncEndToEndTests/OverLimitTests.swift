import Foundation
import PostgresTestSupport
import SwiduxSync
import SwiduxSyncWire
import Synchronization
import Testing

/// Continuous sync against a server that refuses it as over its user's limit (429 with
/// `Retry-After`): the client waits at least what the server asked, not its own short backoff.
@Suite(.timeLimit(.minutes(2)))
struct OverLimitTests {
    @Test("a 429 with Retry-After: 3 is retried after at least 3 s, not in a loop, and the change then reaches the server")
    func honoursRetryAfter() async throws {
        let postgres = try await PostgresCluster.shared().createDatabase()
        let token = try await ServerProcess.createToken(postgres: postgres, space: "busy")
        // Another token of the space: another user, to read the server's rows.
        let reader = try await ServerProcess.createToken(postgres: postgres, space: "busy")
        let server = try await ServerProcess.start(postgres: postgres, arguments: ["--max-requests-per-user", "2", "--retry-after", "3"])
        defer { Task { await server.stop() } }
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        // A backoff far shorter than the server's Retry-After: only honouring it makes the client wait.
        let device = try Device(name: "a", directory: directory, server: server.url, token: token,
                                retry: SyncRetryPolicy(first: .milliseconds(50), longest: .milliseconds(50)))
        try await device.write { db in try db.execute(sql: "INSERT INTO parent (id, name) VALUES ('p1', 'busy')") }

        // The user's two requests in flight: long polls of 4 s on other connections.
        let holders = try (0..<2).map { _ in try RawSocket(port: server.port) }
        for holder in holders {
            holder.send("GET /\(SyncProtocol.pullPath)?after=0&wait=4 HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer \(token)\r\nConnection: close\r\n\r\n")
        }
        try await Task.sleep(for: .milliseconds(500))

        let refusals = Mutex<[(at: ContinuousClock.Instant, retryingIn: Duration)]>([])
        let events = device.client.events
        let watcher = Task {
            for await event in events {
                if case .failed(.rejected(429, _), let delay) = event { refusals.withLock { $0.append((.now, delay)) } }
            }
        }
        await device.client.start()
        let deadline = ContinuousClock.now + .seconds(30)
        while (try? await device.client.pendingChanges()) != 0, ContinuousClock.now < deadline {
            try await Task.sleep(for: .milliseconds(100))
        }
        let pushed = ContinuousClock.now
        await device.client.stop()
        watcher.cancel()
        for holder in holders { _ = holder.readAnswer() }

        let seen = refusals.withLock { $0 }
        print("over limit: \(seen.count) refusals, waits \(seen.map(\.retryingIn)); pushed \(seen.first.map { pushed - $0.at } ?? .zero) after the first")
        #expect(!seen.isEmpty, "the server never refused the client")
        // Each loop (push, pull) is refused at most about once per 3 to 4.5 s while the polls hold the slots.
        #expect(seen.count <= 6, "\(seen.count) refusals: a tight loop")
        for refusal in seen {
            #expect(refusal.retryingIn >= .seconds(3) && refusal.retryingIn <= .milliseconds(4500), "\(refusal.retryingIn)")
        }
        if let first = seen.first { #expect(pushed - first.at >= .milliseconds(2900), "pushed \(pushed - first.at) after the first 429") }
        let rows = try await serverSnapshot(server: server.url, token: reader)
        #expect(rows["parent"]?.keys.sorted() == [SyncValue.text("p1").key])
    }
}
