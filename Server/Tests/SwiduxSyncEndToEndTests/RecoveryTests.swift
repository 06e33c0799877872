import Foundation
import PostgresTestSupport
import SwiduxSync
import SwiduxSyncWire
import Testing

/// Continuous sync after the server went away and came back: the change made meanwhile
/// reaches the server as soon as the server answers again (the pull loop tries it every few
/// seconds, and its answer ends the push loop's backoff), not after the backoff.
@Suite(.timeLimit(.minutes(3)))
struct RecoveryTests {
    /// The push loop's backoff in the first test: far longer than the test may take, so that
    /// only the wake-up on the server's return can push the change in time.
    static let longBackoff = SyncRetryPolicy(first: .seconds(600), longest: .seconds(600))

    @Test("a change made while the server was down is pushed when the server answers again, not after the push's backoff")
    func changeMadeOfflineIsPushedWhenTheServerAnswersAgain() async throws {
        let fixture = try await SyncServerFixture.start(space: "recovery")
        let port = fixture.server.port
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let device = try Device(name: "a", directory: directory, server: fixture.server.url, token: fixture.token, retry: Self.longBackoff)
        var events = device.client.events.makeAsyncIterator()
        await device.client.start()
        try await device.write { db in try db.execute(sql: "INSERT INTO parent (id, name) VALUES ('p1', 'before')") }
        #expect(await waitFor(seconds: 30) { (try? await device.client.pendingChanges()) == 0 })

        await fixture.server.kill()
        try await device.write { db in try db.execute(sql: "INSERT INTO parent (id, name) VALUES ('p2', 'offline')") }
        // The push failed and waits its 10 minutes (the pull loop's waits are 4 s at most).
        var pushWaits = false
        while let event = await events.next() {
            if case .failed(_, let delay) = event, delay == Self.longBackoff.first { pushWaits = true; break }
        }
        #expect(pushWaits)
        #expect(try await device.client.pendingChanges() > 0)

        let again = try await ServerProcess.start(postgres: fixture.postgres, port: port)
        defer { Task { await again.stop() } }
        // Without the wake-up the change would wait 10 minutes; woken only by the end of a long
        // poll (25 s without a change), it would wait at least 25 s. The pull loop's next try
        // comes within 4 s: the bound leaves ample room for a busy machine.
        #expect(await waitFor(seconds: 20) { (try? await device.client.pendingChanges()) == 0 },
                "the change made offline was still waiting 20 s after the server's return")
        let rows = try await serverSnapshot(server: again.url, token: fixture.token)
        #expect(rows["parent"]?.keys.sorted() == [SyncValue.text("p1").key, SyncValue.text("p2").key].sorted())
        await device.client.stop()
    }

    @Test("after a refused token nothing is sent until retryNow(); then it is tried again")
    func refusedTokenWaitsForRetryNow() async throws {
        let fixture = try await SyncServerFixture.start(space: "refused")
        defer { Task { await fixture.stop() } }
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let device = try Device(name: "a", directory: directory, server: fixture.server.url, token: String(repeating: "0", count: 64))
        let events = device.client.events
        await device.client.start()
        var stopped = 0
        var iterator = events.makeAsyncIterator()
        while let event = await iterator.next() {
            if case .stopped(.unauthorized) = event { stopped += 1; break }
            if case .failed(.unauthorized, _) = event { Issue.record("a refused token was retried: \(event)"); break }
        }
        #expect(stopped == 1)
        await device.client.retryNow()
        // Tried again: refused again, said again.
        while let event = await iterator.next() {
            if case .stopped(.unauthorized) = event { stopped += 1; break }
        }
        #expect(stopped == 2)
        await device.client.stop()
    }

    private func waitFor(seconds: Double, _ condition: () async -> Bool) async -> Bool {
        let deadline = ContinuousClock.now + .seconds(seconds)
        while ContinuousClock.now < deadline {
            if await condition() { return true }
            try? await Task.sleep(for: .milliseconds(100))
        }
        return await condition()
    }
}
