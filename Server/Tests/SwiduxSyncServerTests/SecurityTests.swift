import Foundation
import PostgresTestSupport
import SwiduxSyncWire
import Testing

/// Every refusal has its exact status, a SyncErrorBody, writes nothing (the whole state
/// snapshot is unchanged), and the server keeps serving afterwards.
@Suite("Security and bad input")
struct SecurityTests {
    /// Runs `attempt`, then checks its status and error, that nothing was written, and that
    /// `healthy` still pushes.
    private func refused(_ server: TestServer, _ healthy: SyncHTTP, status: Int, containing text: String,
                         _ attempt: () async throws -> SyncHTTP.Answer) async throws {
        let before = try await server.snapshot()
        let answer = try await attempt()
        #expect(answer.status == status, "\(String(decoding: answer.body, as: UTF8.self))")
        let error = try #require(answer.error, "the body is a SyncErrorBody: \(String(decoding: answer.body, as: UTF8.self))")
        #expect(error.contains(text), "\(error)")
        #expect(try await server.snapshot() == before)
        let still = try await healthy.push([todo(UUID().uuidString)])
        #expect(still.results.count == 1)
    }

    @Test("a token reads and writes its own space only")
    func crossSpace() async throws {
        try await TestServer.with { server in
            let alice = try await server.client(space: "alice")
            let bob = try await server.client(space: "bob", tables: ["todo"])
            try await alice.push([todo("secret", title: "alice's")])
            // Bob reads: nothing of Alice's.
            #expect(try await bob.pullAll().isEmpty)
            // Bob writes the same table and id: it lands in Bob's space, Alice's row is untouched.
            try await bob.push([todo("secret", .update, title: "bob's")])
            try await bob.push([todo("secret", .delete)])
            let aliceRows = try await alice.pullAll()
            #expect(aliceRows.count == 1 && aliceRows[0].columns?["title"] == .text("alice's"))
            let bobRows = try await bob.pullAll()
            #expect(bobRows.count == 1 && bobRows[0].deleted)
            // A table only Alice declared is unknown to Bob's space: 400, nothing written.
            try await refused(server, bob, status: 400, containing: "unknown table \"list\"") {
                try await bob.pushAnswer(JSONEncoder().encode(PushRequest(clientID: bob.clientID, mutations: [
                    SyncMutation(id: bob.mutationID(), changes: [SyncChange(table: "list", id: .text("x"), kind: .insert, columns: [:])]),
                ])))
            }
            // Bob using Alice's client id does not touch Alice's mutation counter.
            let borrowed = SyncHTTP(base: server.url, token: bob.token, clientID: alice.clientID)
            let response = try await borrowed.push(PushRequest(clientID: alice.clientID, mutations: [SyncMutation(id: 1, changes: [todo("b")])]))
            #expect(response.results.count == 1, "Alice's mutation 1 does not make Bob's skip")
            #expect(try await alice.pullAll().map(\.id) == [.text("secret")])
        }
    }

    @Test("missing, wrong, malformed and revoked tokens get 401 on every route")
    func badTokens() async throws {
        try await TestServer.with { server in
            let good = try await server.client(space: "home")
            let revokedToken = try await server.token(space: "home")
            try await ServerProcess.revokeToken(postgres: server.database, token: revokedToken)
            let body = try JSONEncoder().encode(PushRequest(clientID: "c", mutations: [SyncMutation(id: 1, changes: [todo("1")])]))
            let tables = try JSONEncoder().encode(TablesRequest(tables: ["other"]))
            let cases: [(String?, String)] = [
                (nil, "missing bearer token"), ("Bearer ", "not a bearer token"), ("Basic abc", "not a bearer token"),
                ("Bearer " + String(repeating: "0", count: 64), "unknown or revoked"), ("Bearer \(revokedToken)", "unknown or revoked"),
            ]
            for (authorization, message) in cases {
                let client = SyncHTTP(base: server.url, token: nil)
                try await refused(server, good, status: 401, containing: message) {
                    try await client.raw("POST", SyncProtocol.pushPath, body: body, authorization: authorization)
                }
                try await refused(server, good, status: 401, containing: message) {
                    try await client.raw("PUT", SyncProtocol.tablesPath, body: tables, authorization: authorization)
                }
                try await refused(server, good, status: 401, containing: message) {
                    try await client.raw("GET", SyncProtocol.pullPath + "?after=0", authorization: authorization)
                }
            }
            // Revoking an unknown token is an error that says so.
            await #expect(throws: (any Error).self) {
                try await ServerProcess.revokeToken(postgres: server.database, token: "nope")
            }
        }
    }

    @Test("malformed JSON, unknown or invalid tables, bad queries and bad mutations get 400")
    func badRequests() async throws {
        try await TestServer.with { server in
            let a = try await server.client(space: "home")
            let mixed = PushRequest(clientID: a.clientID, mutations: [
                SyncMutation(id: 1, changes: [todo("1")]),
                SyncMutation(id: 2, changes: [SyncChange(table: "nope", id: .text("x"), kind: .insert, columns: [:])]),
            ])
            let bodies: [(Data, String)] = [
                (Data("{not json".utf8), "malformed"),
                (Data(#"{"clientID": "c"}"#.utf8), "malformed"),
                (Data(#"{"clientID":"c","mutations":[{"id":1,"changes":[{"table":"todo","id":{"x":1},"kind":"insert"}]}]}"#.utf8), "malformed"),
                (try JSONEncoder().encode(mixed), "unknown table \"nope\""),
                (try JSONEncoder().encode(PushRequest(clientID: a.clientID, mutations: [
                    SyncMutation(id: 1, changes: [SyncChange(table: "swidux_x", id: .text("x"), kind: .insert, columns: [:])]),
                ])), "invalid table name"),
                (try JSONEncoder().encode(PushRequest(clientID: a.clientID, mutations: [
                    SyncMutation(id: 2, changes: [todo("1")]), SyncMutation(id: 2, changes: [todo("2")]),
                ])), "increasing"),
                (try JSONEncoder().encode(PushRequest(clientID: a.clientID, mutations: [
                    SyncMutation(id: 1, changes: [todo("1"), todo("1", .update)]),
                ])), "twice"),
                (try JSONEncoder().encode(PushRequest(clientID: a.clientID, mutations: [
                    SyncMutation(id: 1, changes: [SyncChange(table: "todo", id: .text("1"), kind: .update)]),
                ])), "no columns"),
                (try JSONEncoder().encode(PushRequest(clientID: "", mutations: [])), "clientID"),
            ]
            for (body, message) in bodies {
                try await refused(server, a, status: 400, containing: message) { try await a.pushAnswer(body) }
            }
            try await refused(server, a, status: 400, containing: "invalid table name") {
                try await a.raw("PUT", SyncProtocol.tablesPath, body: JSONEncoder().encode(TablesRequest(tables: ["ok", "1bad"])))
            }
            try await refused(server, a, status: 400, containing: "malformed") {
                try await a.raw("PUT", SyncProtocol.tablesPath, body: Data("[]".utf8))
            }
            for query in ["after=x", "after=-1", "limit=0", "wait=61", "wait=1.5"] {
                try await refused(server, a, status: 400, containing: "invalid query parameter") {
                    try await a.raw("GET", SyncProtocol.pullPath + "?" + query)
                }
            }
        }
    }

    @Test("a body over SyncProtocol.maxBodyBytes gets 413")
    func oversized() async throws {
        try await TestServer.with { server in
            let a = try await server.client(space: "home")
            // A valid push, padded past the limit with a long title.
            let title = String(repeating: "x", count: SyncProtocol.maxBodyBytes)
            let body = try JSONEncoder().encode(PushRequest(clientID: a.clientID, mutations: [
                SyncMutation(id: 1, changes: [todo("big", title: title)]),
            ]))
            #expect(body.count > SyncProtocol.maxBodyBytes)
            try await refused(server, a, status: 413, containing: "larger than") { try await a.pushAnswer(body) }
        }
    }
}
