import Foundation
import PostgresTestSupport
import SwiduxSyncWire
import Testing

@Suite("Database outage")
struct DatabaseOutageTests {
    /// Issue 29 item 15: with PostgreSQL down a request took 67 s to fail with 500, and
    /// after PostgreSQL was back the server answered 500 for another 14-65 s. A cluster of
    /// the test's own (it is stopped and started), a real server process.
    @Test("PostgreSQL down: 503 within seconds, with the --retry-after wait; back: answers again within seconds",
          .timeLimit(.minutes(2)))
    func outageAndRecovery() async throws {
        let cluster = try await PostgresCluster.start()
        do {
            try await outage(cluster)
        } catch {
            await cluster.stop()
            throw error
        }
        await cluster.stop()
    }

    private func outage(_ cluster: PostgresCluster) async throws {
        let database = try await cluster.createDatabase()
        // A long idle timeout: under a loaded machine the client's kept-alive connection must
        // not be closed by the server between rounds (URLSession then fails with -1005). A
        // --retry-after other than its default: a 503 asks for the wait a 429 asks for.
        let server = try await ServerProcess.start(postgres: database, arguments: ["--idle-timeout", "600", "--retry-after", "9"])
        let token = try await ServerProcess.createToken(postgres: database, space: "home")
        let client = SyncHTTP(base: server.url, token: token)
        try await client.declare(["todo"])
        try await client.push([todo("before")])

        try await cluster.stopServer()
        // Several rounds over 6 s of outage (a pool backing off its reconnections would
        // still be waiting long after PostgreSQL's return).
        for round in 0..<4 {
            let started = ContinuousClock.now
            let pull: SyncHTTP.Answer
            do { pull = try await client.pullAnswer(after: 0) } catch {
                Issue.record("the server did not answer: \(error)\n\(server.child.standardError)")
                throw error
            }
            let took = ContinuousClock.now - started
            #expect(pull.status == 503, "round \(round): pull answered \(pull.status) \(pull.error ?? "")")
            #expect(pull.error?.contains("the database is unavailable") == true, "\(pull.error ?? "")")
            #expect(pull.retryAfter == "9", "round \(round): pull's Retry-After \(pull.retryAfter ?? "none")")
            // "Within seconds" (SPEC 1.13); under 1 s alone. Loose: two loaded cores slow the answer.
            #expect(took < .seconds(15), "round \(round): the 503 took \(took)")
            print("database outage: round \(round): \(pull.status) after \(took)")
            let push = try await client.pushAnswer(try JSONEncoder().encode(
                PushRequest(clientID: client.clientID, mutations: [SyncMutation(id: 99, changes: [todo("during")])])))
            #expect(push.status == 503, "round \(round): push answered \(push.status) \(push.error ?? "")")
            #expect(push.retryAfter == "9", "round \(round): push's Retry-After \(push.retryAfter ?? "none")")
            try await Task.sleep(for: .seconds(1.5))
        }

        try await cluster.startServer()
        let back = ContinuousClock.now
        var answer = try await client.pullAnswer(after: 0)
        while answer.status != 200, ContinuousClock.now - back < .seconds(30) {
            try await Task.sleep(for: .milliseconds(100))
            answer = try await client.pullAnswer(after: 0)
        }
        let recovery = ContinuousClock.now - back
        print("database outage: answered \(answer.status) again \(recovery) after PostgreSQL's return")
        #expect(answer.status == 200, "after PostgreSQL's return: \(answer.status) \(answer.error ?? "")")
        #expect(recovery < .seconds(15), "the server answered again \(recovery) after PostgreSQL's return")
        #expect(try answer.decode(PullResponse.self).rows.map(\.id) == [.text("before")])
        try await client.push([todo("after")])
        await server.stop()
    }
}
