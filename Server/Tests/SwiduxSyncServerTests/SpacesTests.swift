import Crypto
import Foundation
import PostgresTestSupport
import SwiduxSyncServer
import SwiduxSyncWire
import SwiduxTestSupport
import Testing

/// The spaces API (`GET|POST v1/spaces`): every space a caller's token reaches, with their
/// role, and shared spaces made by their users; and the long poll on a personal space that a
/// change of its user's memberships ends.
@Suite("Spaces")
struct SpacesTests {
    /// A server accepting JWTs, and a client per user.
    static func withUsers(_ body: (TestServer, (String) throws -> SyncHTTP) async throws -> Void) async throws {
        let hmac = JWTTests.Signer.hmac(SymmetricKey(size: .bits256))
        let jwt = try JWTConfiguration(jwks: try JWTTests.keySet([(hmac, "k1")]))
        try await TestServer.with(jwt: jwt) { server in
            try await body(server) { subject in
                SyncHTTP(base: server.url, token: try JWTTests.token(JWTTests.claims(subject), signer: hmac, kid: "k1"))
            }
        }
    }

    static func spaces(of client: SyncHTTP) async throws -> [SpaceEntry] {
        let answer = try await client.raw("GET", SyncProtocol.spacesPath)
        #expect(answer.status == 200, "\(answer.error ?? "")")
        return try answer.decode(SpaceList.self).spaces
    }

    static func newSpace(_ name: String) throws -> Data { try JSONEncoder().encode(NewSpace(name: name)) }

    @Test("a JWT user's list: the personal space first, then their shared spaces by name with their role", .timeLimit(.minutes(2)))
    func listsByRole() async throws {
        try await Self.withUsers { server, user in
            let (alice, bob, carol) = (try user("alice"), try user("bob"), try user("carol"))
            #expect(try await alice.raw("POST", SyncProtocol.spacesPath, body: Self.newSpace("work")).status == 201)
            #expect(try await alice.raw("POST", SyncProtocol.spacesPath, body: Self.newSpace("family")).status == 201)
            #expect(try await alice.raw("POST", SyncProtocol.membersPath(of: "family"), body: Data(#"{"user":"bob","role":"writer"}"#.utf8)).status == 204)
            let added = try await SpaceMemberTests.space(["add-member", "--space", "club", "--user", "bob", "--role", "owner"], postgres: server.database)
            #expect(added.status == 0, "\(added.stderr)")
            _ = try await SpaceMemberTests.space(["add-member", "--space", "club", "--user", "alice", "--role", "reader"], postgres: server.database)

            #expect(try await Self.spaces(of: alice) == [
                SpaceEntry(name: "user:alice", role: "owner", personal: true),
                SpaceEntry(name: "club", role: "reader", personal: false),
                SpaceEntry(name: "family", role: "owner", personal: false),
                SpaceEntry(name: "work", role: "owner", personal: false),
            ])
            #expect(try await Self.spaces(of: bob) == [
                SpaceEntry(name: "user:bob", role: "owner", personal: true),
                SpaceEntry(name: "club", role: "owner", personal: false),
                SpaceEntry(name: "family", role: "writer", personal: false),
            ])
            // Carol's first request makes her personal space, as any request would.
            #expect(try await Self.spaces(of: carol) == [SpaceEntry(name: "user:carol", role: "owner", personal: true)])
            #expect(try await SpaceMemberTests.list(server.database, space: "user:carol") == ["user:carol\tcarol\towner"])
            // Someone else's personal space joined is a shared space for them.
            _ = try await SpaceMemberTests.space(["add-member", "--space", "user:carol", "--user", "bob", "--role", "reader"], postgres: server.database)
            #expect(try await Self.spaces(of: bob).map(\.name) == ["user:bob", "club", "family", "user:carol"])
            #expect(try await Self.spaces(of: bob).last == SpaceEntry(name: "user:carol", role: "reader", personal: false))

            for token in ["not-a-token", "e30.e30.e30"] {
                let refused = try await alice.with(token: token).raw("GET", SyncProtocol.spacesPath)
                #expect(refused.status == 401, "\(token): \(refused.status) \(refused.error ?? "")")
            }
            #expect(try await alice.with(token: nil).raw("GET", SyncProtocol.spacesPath).status == 401)
        }
    }

    @Test("an opaque token's list: its one space, as a writer; it may not make a space (403)", .timeLimit(.minutes(2)))
    func opaqueToken() async throws {
        try await TestServer.with { server in
            let client = try await server.client(space: "kitchen")
            #expect(try await Self.spaces(of: client) == [SpaceEntry(name: "kitchen", role: "writer", personal: true)])
            let refused = try await client.raw("POST", SyncProtocol.spacesPath, body: Self.newSpace("garden"))
            #expect(refused.status == 403)
            #expect(refused.error?.contains("an opaque token opens its own space only, and cannot make one") == true, "\(refused.error ?? "")")
            let revoked = client.with(token: String(repeating: "0", count: 64))
            #expect(try await revoked.raw("GET", SyncProtocol.spacesPath).status == 401)
        }
    }

    @Test("making a shared space: 201, a retry by its owner 200, another user 409, a user: or invalid name and a malformed body 400",
          .timeLimit(.minutes(2)))
    func makeSpace() async throws {
        try await Self.withUsers { server, user in
            let (alice, bob) = (try user("alice"), try user("bob"))
            let made = try await alice.raw("POST", SyncProtocol.spacesPath, body: Self.newSpace("family"))
            #expect(made.status == 201, "\(made.error ?? "")")
            #expect(try made.decode(SpaceEntry.self) == SpaceEntry(name: "family", role: "owner", personal: false))
            let retried = try await alice.raw("POST", SyncProtocol.spacesPath, body: Self.newSpace("family"))
            #expect(retried.status == 200, "\(retried.error ?? "")")
            #expect(try retried.decode(SpaceEntry.self) == SpaceEntry(name: "family", role: "owner", personal: false))

            // A member who is not an owner, a stranger, and a space made by `token create`.
            #expect(try await alice.raw("POST", SyncProtocol.membersPath(of: "family"), body: Data(#"{"user":"bob","role":"writer"}"#.utf8)).status == 204)
            _ = try await server.token(space: "kitchen")
            for (client, name) in [(bob, "family"), (try user("carol"), "family"), (alice, "kitchen")] {
                let taken = try await client.raw("POST", SyncProtocol.spacesPath, body: Self.newSpace(name))
                #expect(taken.status == 409, "\(name): \(taken.status) \(taken.error ?? "")")
                #expect(taken.error?.contains(#"space "\#(name)" exists already"#) == true, "\(taken.error ?? "")")
            }
            let cases: [(Data, String)] = [
                (try Self.newSpace("user:bob"), #"invalid space name "user:bob": personal spaces are made by their user's first request"#),
                (try Self.newSpace("user:alice"), "personal spaces are made by their user's first request"),
                (try Self.newSpace(""), "it must have 1 to 200 bytes"),
                (try Self.newSpace(String(repeating: "x", count: 201)), "it must have 1 to 200 bytes"),
                (Data(#"{"title":"family"}"#.utf8), "malformed NewSpace JSON"),
                (Data("not json".utf8), "malformed NewSpace JSON"),
            ]
            for (body, message) in cases {
                let refused = try await bob.raw("POST", SyncProtocol.spacesPath, body: body)
                #expect(refused.status == 400, "\(message): \(refused.status)")
                #expect(refused.error?.contains(message) == true, "\(refused.error ?? "")")
            }
            #expect(try await SpaceMemberTests.list(server.database) == [
                "family\talice\towner", "family\tbob\twriter", "user:alice\talice\towner", "user:bob\tbob\towner", "user:carol\tcarol\towner",
            ])
        }
    }

    @Test("a membership added, changed or removed, or a space made, ends the long poll on the user's personal space, with its empty page",
          .timeLimit(.minutes(2)))
    func membershipEndsPersonalPoll() async throws {
        try await Self.withUsers { server, user in
            let (alice, bob) = (try user("alice"), try user("bob"))
            #expect(try await alice.raw("POST", SyncProtocol.spacesPath, body: Self.newSpace("family")).status == 201)
            let cursor = try await bob.pull().cursor
            let members = SyncProtocol.membersPath(of: "family")
            let changes: [(String, () async throws -> Void)] = [
                ("added by the API", {
                    let added = try await alice.raw("POST", members, body: Data(#"{"user":"bob","role":"writer"}"#.utf8))
                    #expect(added.status == 204, "\(added.error ?? "")")
                }),
                ("made a reader by the command", {
                    let changed = try await SpaceMemberTests.space(["add-member", "--space", "family", "--user", "bob", "--role", "reader"],
                                                                    postgres: server.database)
                    #expect(changed.status == 0, "\(changed.stderr)")
                }),
                ("removed by the API", {
                    let removed = try await alice.raw("DELETE", members + "/bob")
                    #expect(removed.status == 204, "\(removed.error ?? "")")
                }),
                // Bob's other devices learn of the space he made on one.
                ("a space of his made", {
                    let made = try await bob.raw("POST", SyncProtocol.spacesPath, body: Self.newSpace("club"))
                    #expect(made.status == 201, "\(made.error ?? "")")
                }),
            ]
            for (change, make) in changes {
                let start = ContinuousClock.now
                let poll = Task { try await bob.pullAnswer(after: cursor, wait: 20) }
                try await Task.sleep(for: .milliseconds(500))
                try await make()
                let answer = try await poll.value
                // Liveness, not speed: the poll ended on the change, not at the end of its wait.
                #expect(ContinuousClock.now - start < .seconds(15), "\(change)")
                #expect(answer.status == 200, "\(change): \(answer.error ?? "")")
                #expect(try answer.decode(PullResponse.self).rows.isEmpty, "\(change)")
            }
            #expect(try await Self.spaces(of: bob) == [
                SpaceEntry(name: "user:bob", role: "owner", personal: true), SpaceEntry(name: "club", role: "owner", personal: false),
            ])
        }
    }
}
