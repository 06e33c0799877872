import Foundation
@testable import SwiduxSync
import SwiduxTestSupport
import Testing

/// Issue 30 item 9: a continuously syncing client does not read the outbox 20 times a
/// second; its push loop waits for commits (the app's own wake it in process).
@Suite(.serialized)
struct SyncIdleWakeUpTests {
    @Test("An idle sync client wakes at most once a second (counted over 10 s)")
    func idleClientWakesAtMostOnceASecond() async throws {
        let fixture = try Fixture()
        let server = try HungServer()
        defer { server.stop() }
        let client = try SyncClient(database: fixture.database, server: server.url, token: "t", tables: NotesSchema.tables)
        await client.start()
        try await Task.sleep(for: .milliseconds(300))
        let before = await client.wakeUps
        try await Task.sleep(for: .seconds(10))
        let wakeUps = await client.wakeUps - before
        await client.stop()
        #expect(wakeUps <= 10, "\(wakeUps) wake-ups in 10 s")
    }

    @Test("A local commit wakes the push loop at once")
    func aLocalCommitWakesThePushLoop() async throws {
        let fixture = try Fixture()
        let server = try HungServer()
        defer { server.stop() }
        let client = try SyncClient(database: fixture.database, server: server.url, token: "t", tables: NotesSchema.tables)
        await client.start()
        try await Task.sleep(for: .milliseconds(300))
        let before = await client.wakeUps
        try await fixture.flush(folders: [Folder(id: "f", name: "inbox")])
        let deadline = ContinuousClock.now + .milliseconds(1500)   // under the 2 s slow poll
        var woken = false
        while !woken, ContinuousClock.now < deadline {
            try await Task.sleep(for: .milliseconds(5))
            woken = await client.wakeUps > before
        }
        #expect(woken)
        await client.stop()
    }
}
