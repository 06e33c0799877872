import Foundation
import PostgresNIO
import PostgresTestSupport
import SwiduxSyncWire
import SwiduxTestSupport
import Testing
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Issue 29 items 12, 13, 18: a chunked oversized body, a NUL in an id, a quiet `token create`.
@Suite("Hostile inputs")
struct HostileInputTests {
    @Test("a chunked body over SyncProtocol.maxBodyBytes gets 413, like a Content-Length one (item 12)")
    func chunkedOversized() async throws {
        try await TestServer.with { server in
            let a = try await server.client(space: "home")
            let before = try await server.snapshot()
            let body = try JSONEncoder().encode(PushRequest(clientID: a.clientID, mutations: [
                SyncMutation(id: 1, changes: [todo("big", title: String(repeating: "x", count: SyncProtocol.maxBodyBytes))]),
            ]))
            var request = URLRequest(url: server.url.appendingPathComponent(SyncProtocol.pushPath))
            request.httpMethod = "POST"
            request.setValue("Bearer \(a.token!)", forHTTPHeaderField: "Authorization")
            request.setValue("application/json", forHTTPHeaderField: "Content-Type")
            request.setValue("chunked", forHTTPHeaderField: "Transfer-Encoding")
            request.httpBodyStream = InputStream(data: body)   // no Content-Length: sent chunked
            let (data, response) = try await SyncHTTP.session.data(for: request)
            let status = (response as? HTTPURLResponse)?.statusCode ?? -1
            #expect(status == 413, "\(status) \(String(decoding: data.prefix(300), as: UTF8.self))")
            #expect(try await server.snapshot() == before)
        }
    }

    @Test("a NUL in a text id or the client id gets 400 naming the field (item 13)")
    func nulInID() async throws {
        try await TestServer.with { server in
            let a = try await server.client(space: "home")
            let before = try await server.snapshot()
            let nulID = try await a.pushAnswer(try JSONEncoder().encode(PushRequest(clientID: a.clientID, mutations: [
                SyncMutation(id: 1, changes: [todo("a\u{0}b")]),
            ])))
            #expect(nulID.status == 400)
            #expect(nulID.error?.contains("id of todo") == true && nulID.error?.contains("NUL") == true, "\(nulID.error ?? "")")
            let nulClient = try await a.pushAnswer(try JSONEncoder().encode(PushRequest(clientID: "x\u{0}", mutations: [
                SyncMutation(id: 1, changes: [todo("ok")]),
            ])))
            #expect(nulClient.status == 400)
            #expect(nulClient.error?.contains("clientID") == true, "\(nulClient.error ?? "")")
            #expect(try await server.snapshot() == before)
        }
    }

    /// Issue 31: a large mutation written with COPY, then a refused one: nothing is written, no version taken.
    @Test("a request whose last mutation is refused (a row twice) after a large one gets 400 and changes nothing, its sequence included")
    func lateRefusalChangesNothing() async throws {
        try await TestServer.with { server in
            let a = try await server.client(space: "home")
            let before = try await server.snapshot()
            let large = SyncMutation(id: 1, changes: (0..<300).map { todo("row\($0)") })   // written with COPY
            let small = SyncMutation(id: 2, changes: [todo("x")])
            let bad = SyncMutation(id: 3, changes: [todo("y"), todo("y", .update, title: "again")])
            let answer = try await a.pushAnswer(try JSONEncoder().encode(PushRequest(clientID: a.clientID, mutations: [large, small, bad])))
            #expect(answer.status == 400)
            #expect(answer.error?.contains("mutation 3 changes todo") == true, "\(answer.error ?? "")")
            #expect(try await server.snapshot() == before)
            // The same mutations without the bad one apply, under the same ids.
            let applied = try await a.push(PushRequest(clientID: a.clientID, mutations: [large, small]))
            #expect(applied.acknowledged == [1, 2])
            #expect(try await a.pull(limit: 1000).rows.count == 301)
        }
    }

    @Test("token create and revoke print only their result, nothing on stderr (item 18)")
    func quietTokenCommands() async throws {
        let database = try await PostgresCluster.shared().createDatabase()
        let executable = try ServerProcess.executable()
        for _ in 0..<8 {
            let result = try await ChildProcess.capture([executable, "token", "create", "--postgres", database, "--space", "quiet"])
            #expect(result.status == 0)
            #expect(result.stderr.isEmpty, "\(result.stderr)")
        }
    }

    @Test("token revoke reads the token from SWIDUX_SYNC_TOKEN (not in ps), and says when there is none (item 19)")
    func revokeFromEnvironment() async throws {
        let database = try await PostgresCluster.shared().createDatabase()
        let token = try await ServerProcess.createToken(postgres: database, space: "env")
        let executable = try ServerProcess.executable()
        var environment = ProcessInfo.processInfo.environment
        environment["SWIDUX_SYNC_TOKEN"] = token
        let revoked = try await ChildProcess.capture([executable, "token", "revoke", "--postgres", database], environment: environment)
        #expect(revoked.status == 0 && revoked.stdout.contains("revoked"), "\(revoked.stderr)")
        let revokedFlag = try await PostgresCluster.shared().withConnection(database: database) { connection, logger in
            var flags: [Bool] = []
            for try await flag in try await connection.query("SELECT revoked FROM sync_tokens", logger: logger).decode(Bool.self) { flags.append(flag) }
            return flags
        }
        #expect(revokedFlag == [true])
        environment["SWIDUX_SYNC_TOKEN"] = nil
        let none = try await ChildProcess.capture([executable, "token", "revoke", "--postgres", database], environment: environment)
        #expect(none.status != 0)
        #expect(none.stderr.contains("no token to revoke"), "\(none.stderr)")
    }
}
