import Foundation
import PostgresTestSupport
import SwiduxSyncWire
import Testing

@Suite("Revocation")
struct RevocationTests {
    /// Issue 29 item 8: a long poll opened before `token revoke` went on waiting, and then
    /// delivered the rows pushed after the revocation.
    @Test("a long poll opened before `token revoke` ends with 401, long before its wait is over", .timeLimit(.minutes(1)))
    func revokeEndsOpenPolls() async throws {
        try await TestServer.with { server in
            let writer = try await server.client(space: "home")
            let reader = try await server.client(space: "home")
            let cursor = try await reader.pull().cursor
            let poll = Task { (try await reader.pullAnswer(after: cursor, wait: 60), ContinuousClock.now) }
            try await Task.sleep(for: .milliseconds(500))
            try await ServerProcess.revokeToken(postgres: server.database, token: try #require(reader.token))
            let revoked = ContinuousClock.now
            // A push after the revocation must not reach the revoked reader.
            try await writer.push([todo("after revocation")])
            let (ended, arrived) = try await poll.value
            let took = arrived - revoked
            print("revocation: the open poll answered \(ended.status) \(took) after `token revoke` returned")
            #expect(ended.status == 401, "the poll answered \(ended.status): \(String(decoding: ended.body, as: UTF8.self))")
            #expect(ended.error?.contains("revoked") == true)
            // The poll asked to wait 60 s: ending long before that shows the revocation ended it,
            // not its own timeout. How fast (about 0.1 s measured alone) is not asserted here: in
            // the parallel test run on two cores the answer took up to 3.6 s (a timed unit test
            // fails with the machine's load, not with the code).
            #expect(took < .seconds(30), "the poll ended \(took) after the revocation")
        }
    }

    /// Issue 31 item 5: a long poll's next request takes the token check its woken poll made
    /// (``ValidTokens``) — never past a revocation.
    @Test("the next long poll after an answer gets 401 once `token revoke` ran, and not the rows pushed after it", .timeLimit(.minutes(1)))
    func revokeBeforeTheNextPoll() async throws {
        try await TestServer.with { server in
            let writer = try await server.client(space: "home")
            let reader = try await server.client(space: "home")
            let cursor = try await reader.pull().cursor
            let woken = Task { try await reader.pull(after: cursor, wait: 60) }
            try await Task.sleep(for: .milliseconds(500))
            _ = try await writer.push([todo("before revocation")])
            let answered = try await woken.value
            #expect(answered.rows.map(\.id) == [.text("before revocation")])
            try await ServerProcess.revokeToken(postgres: server.database, token: try #require(reader.token))
            _ = try await writer.push([todo("after revocation")])
            try await Task.sleep(for: .milliseconds(300))
            let next = try await reader.pullAnswer(after: answered.cursor, wait: 60)
            #expect(next.status == 401, "the next poll answered \(next.status): \(String(decoding: next.body, as: UTF8.self))")
            #expect(next.error?.contains("revoked") == true)
        }
    }
}
