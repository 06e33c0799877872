import Crypto
import Foundation
import Logging
import PostgresNIO
import PostgresTestSupport
import SwiduxSyncServer
import SwiduxSyncWire
import SwiduxTestSupport
import Testing

/// The members of shared spaces and their roles: `space add-member|remove-member|list` run as
/// real processes, and the invariants the schema keeps (checked again with plain SQL).
@Suite("Space members")
struct SpaceMemberTests {
    /// `swidux-sync-server space <arguments> --postgres <database>`.
    static func space(_ arguments: [String], postgres: String) async throws -> ChildProcess.Captured {
        try await ChildProcess.capture([try ServerProcess.executable(), "space"] + arguments + ["--postgres", postgres])
    }

    static func list(_ postgres: String, space: String? = nil) async throws -> [String] {
        let result = try await Self.space(["list"] + (space.map { ["--space", $0] } ?? []), postgres: postgres)
        #expect(result.status == 0, "\(result.stderr)")
        return result.stdout.split(separator: "\n").map(String.init)
    }

    @Test("add-member, a role change, remove-member and list, as the command prints them", .timeLimit(.minutes(2)))
    func addChangeRemove() async throws {
        let database = try await PostgresCluster.shared().createDatabase()
        for (user, role) in [("alice", "owner"), ("bob", "writer"), ("carol", "reader")] {
            let added = try await Self.space(["add-member", "--space", "family", "--user", user, "--role", role], postgres: database)
            #expect(added.status == 0, "\(added.stderr)")
            #expect(added.stdout.contains("\(user) is a \(role) of family"), "\(added.stdout)")
        }
        _ = try await Self.space(["add-member", "--space", "work", "--user", "dave", "--role", "owner"], postgres: database)
        #expect(try await Self.list(database, space: "family") == ["family\talice\towner", "family\tbob\twriter", "family\tcarol\treader"])
        // A second owner, then bob only reads.
        _ = try await Self.space(["add-member", "--space", "family", "--user", "carol", "--role", "owner"], postgres: database)
        _ = try await Self.space(["add-member", "--space", "family", "--user", "bob", "--role", "reader"], postgres: database)
        let removed = try await Self.space(["remove-member", "--space", "family", "--user", "alice"], postgres: database)
        #expect(removed.status == 0, "\(removed.stderr)")
        #expect(try await Self.list(database) == ["family\tbob\treader", "family\tcarol\towner", "work\tdave\towner"])
    }

    @Test("refusals name the thing and the cause, and change nothing", .timeLimit(.minutes(2)))
    func refusals() async throws {
        let database = try await PostgresCluster.shared().createDatabase()
        _ = try await Self.space(["add-member", "--space", "family", "--user", "alice", "--role", "owner"], postgres: database)
        _ = try await Self.space(["add-member", "--space", "family", "--user", "bob", "--role", "writer"], postgres: database)
        let cases: [([String], String)] = [
            (["add-member", "--space", "family", "--user", "bob", "--role", "admin"], #"unknown role "admin": a role is owner, writer or reader"#),
            (["add-member", "--space", "new", "--user", "bob", "--role", "reader"], #"space "new" has no members yet: its first member must be an owner"#),
            (["add-member", "--space", "family", "--user", "alice", "--role", "writer"], #""alice" cannot be made a writer in space "family": they are its last owner"#),
            (["remove-member", "--space", "family", "--user", "alice"], #""alice" cannot be removed in space "family": they are its last owner"#),
            (["remove-member", "--space", "family", "--user", "zoe"], #""zoe" is not a member of space "family""#),
            (["remove-member", "--space", "nowhere", "--user", "alice"], #"no space named "nowhere""#),
            (["list", "--space", "nowhere"], #"no space named "nowhere""#),
            (["add-member", "--space", "user:zoe", "--user", "zoe", "--role", "owner"], #"no space named "user:zoe": a personal space is made by its user's first request"#),
            (["add-member", "--space", "", "--user", "zoe", "--role", "owner"], "invalid space name"),
            (["add-member", "--space", "family", "--user", "", "--role", "owner"], #"invalid user "": a subject has 1 to"#),
        ]
        for (arguments, message) in cases {
            let result = try await Self.space(arguments, postgres: database)
            #expect(result.status != 0, "\(arguments)")
            #expect(result.stderr.contains(message), "\(arguments): \(result.stderr)")
        }
        #expect(try await Self.list(database) == ["family\talice\towner", "family\tbob\twriter"])
    }

    @Test("a JWT user owns their personal space: listed as its owner, never removed nor demoted; others may join it", .timeLimit(.minutes(2)))
    func personalSpaceOwner() async throws {
        let hmac = JWTTests.Signer.hmac(SymmetricKey(size: .bits256))
        let jwt = try JWTConfiguration(jwks: try JWTTests.keySet([(hmac, "k1")]))
        try await TestServer.with(jwt: jwt) { server in
            let alice = SyncHTTP(base: server.url, token: try JWTTests.token(JWTTests.claims("alice"), signer: hmac, kid: "k1"))
            try await alice.declare(["todo"])
            #expect(try await Self.list(server.database) == ["user:alice\talice\towner"])
            let joined = try await Self.space(["add-member", "--space", "user:alice", "--user", "bob", "--role", "owner"], postgres: server.database)
            #expect(joined.status == 0, "\(joined.stderr)")
            // Even with another owner, alice stays the owner of her own space.
            for arguments in [["remove-member", "--space", "user:alice", "--user", "alice"],
                              ["add-member", "--space", "user:alice", "--user", "alice", "--role", "reader"]] {
                let result = try await Self.space(arguments, postgres: server.database)
                #expect(result.status != 0)
                #expect(result.stderr.contains("it is their personal space, which they always own"), "\(arguments): \(result.stderr)")
            }
            #expect(try await Self.list(server.database) == ["user:alice\talice\towner", "user:alice\tbob\towner"])
        }
    }

    @Test("the schema itself refuses an unknown role, a space left without an owner, and a personal space's user removed")
    func schemaInvariants() async throws {
        let cluster = try await PostgresCluster.shared()
        let database = try await cluster.createDatabase()
        _ = try await Self.space(["add-member", "--space", "family", "--user", "alice", "--role", "owner"], postgres: database)
        let cases: [([String], String)] = [
            (["UPDATE sync_members SET role = 'admin'"], "sync_members_role_check"),
            (["DELETE FROM sync_members WHERE subject = 'alice'"], "would have no owner"),
            (["UPDATE sync_members SET role = 'reader'"], "would have no owner"),
            (["INSERT INTO sync_spaces (name) VALUES ('bare')",
              "INSERT INTO sync_members SELECT id, 'bob', 'writer' FROM sync_spaces WHERE name = 'bare'"], "would have no owner"),
            (["INSERT INTO sync_spaces (name) VALUES ('user:carol')",
              "INSERT INTO sync_users (subject, space) SELECT 'carol', id FROM sync_spaces WHERE name = 'user:carol'",
              "INSERT INTO sync_members SELECT id, 'carol', 'owner' FROM sync_spaces WHERE name = 'user:carol'",
              "INSERT INTO sync_members SELECT id, 'dave', 'owner' FROM sync_spaces WHERE name = 'user:carol'",
              "DELETE FROM sync_members WHERE subject = 'carol'"], "must stay owned by its user"),
        ]
        for (statements, message) in cases {
            let failure = await #expect(throws: PSQLError.self) {
                try await cluster.withConnection(database: database) { connection, logger in
                    try await connection.query("BEGIN", logger: logger)
                    for statement in statements { try await connection.query(PostgresQuery(unsafeSQL: statement), logger: logger) }
                    try await connection.query("COMMIT", logger: logger)
                }
            }
            let said = failure?.serverInfo?[.message] ?? "\(String(reflecting: failure))"
            #expect(said.contains(message), "\(statements): \(said)")
        }
        #expect(try await Self.list(database) == ["family\talice\towner"])
    }

    @Test("the migration records each existing personal space's user as its owner")
    func migrationBackfillsOwners() async throws {
        let cluster = try await PostgresCluster.shared()
        let database = try await cluster.createDatabase()
        _ = try await Self.space(["list"], postgres: database)   // migrates
        // Back to the schema before members, with a user made then.
        try await cluster.withConnection(database: database) { connection, logger in
            for statement: PostgresQuery in [
                "DROP TABLE sync_members", "DROP FUNCTION sync_members_check()", "ALTER TABLE sync_mutations DROP COLUMN reasons",
                "UPDATE sync_schema SET version = 6",
                "INSERT INTO sync_spaces (name) VALUES ('user:erin')",
                "INSERT INTO sync_users (subject, space) SELECT 'erin', id FROM sync_spaces WHERE name = 'user:erin'",
            ] { try await connection.query(statement, logger: logger) }
        }
        #expect(try await Self.list(database) == ["user:erin\terin\towner"])
    }
    @Test("the members API: an owner adds and removes, a writer may only list, a non-member and an opaque token get 403",
          .timeLimit(.minutes(2)))
    func membersAPI() async throws {
        let hmac = JWTTests.Signer.hmac(SymmetricKey(size: .bits256))
        let jwt = try JWTConfiguration(jwks: try JWTTests.keySet([(hmac, "k1")]))
        try await TestServer.with(jwt: jwt) { server in
            _ = try await Self.space(["add-member", "--space", "family", "--user", "alice", "--role", "owner"], postgres: server.database)
            func user(_ subject: String) throws -> SyncHTTP {
                SyncHTTP(base: server.url, token: try JWTTests.token(JWTTests.claims(subject), signer: hmac, kid: "k1"))
            }
            let (alice, bob, carol) = (try user("alice"), try user("bob"), try user("carol"))
            let members = "v1/spaces/family/members"
            struct MembersAnswer: Decodable { var members: [[String: String]] }
            func member(_ user: String, _ role: String) -> Data { Data(#"{"user":"\#(user)","role":"\#(role)"}"#.utf8) }

            #expect(try await alice.raw("POST", members, body: member("bob", "writer")).status == 204)
            let listed = try await bob.raw("GET", members)
            #expect(listed.status == 200)
            #expect(try listed.decode(MembersAnswer.self).members.map { "\($0["user"] ?? ""):\($0["role"] ?? "")" } == ["alice:owner", "bob:writer"])
            let cases: [(SyncHTTP.Answer, Int, String)] = [
                (try await bob.raw("POST", members, body: member("carol", "reader")), 403,
                 #""bob" is a writer of space "family": only an owner adds and removes members"#),
                (try await carol.raw("GET", members), 403, #""carol" is not a member of space "family""#),
                (try await carol.raw("DELETE", members + "/bob"), 403, #""carol" is not a member of space "family""#),
                (try await server.client(space: "family").raw("GET", members), 403, "an opaque token cannot manage or list them"),
                (try await alice.raw("POST", members, body: member("carol", "admin")), 400, #"unknown role "admin""#),
                (try await alice.raw("DELETE", members + "/alice"), 409, "they are its last owner"),
                (try await alice.raw("DELETE", members + "/zoe"), 404, #""zoe" is not a member of space "family""#),
                (try await alice.raw("GET", "v1/spaces/nowhere/members"), 404, #"no space named "nowhere""#),
            ]
            for (answer, status, message) in cases {
                #expect(answer.status == status, "\(message): \(answer.status) \(answer.error ?? "")")
                #expect(answer.error?.contains(message) == true, "\(answer.error ?? "")")
            }
            #expect(try await alice.raw("DELETE", members + "/bob").status == 204)
            // A name in the path is percent-decoded once: her first request made alice's personal space.
            _ = try await alice.pullAnswer()
            let personal = try await alice.raw("GET", "v1/spaces/user%3Aalice/members")
            #expect(personal.status == 200, "\(personal.error ?? "")")
            #expect(try personal.decode(MembersAnswer.self).members == [["user": "alice", "role": "owner"]])
            #expect(try await Self.list(server.database) == ["family\talice\towner", "user:alice\talice\towner"])
        }
    }
    @Test("a shared space by membership: owner and writer push, a reader's changes are refused, a non-member gets 403, a removed reader's poll ends 403",
          .timeLimit(.minutes(2)))
    func sharedSpaceAccess() async throws {
        let hmac = JWTTests.Signer.hmac(SymmetricKey(size: .bits256))
        let jwt = try JWTConfiguration(jwks: try JWTTests.keySet([(hmac, "k1")]))
        try await TestServer.with(jwt: jwt) { server in
            for (user, role) in [("alice", "owner"), ("bob", "writer"), ("carol", "reader")] {
                let added = try await Self.space(["add-member", "--space", "family", "--user", user, "--role", role], postgres: server.database)
                #expect(added.status == 0, "\(added.stderr)")
            }
            func user(_ subject: String, space: String? = "family") throws -> SyncHTTP {
                SyncHTTP(base: server.url, token: try JWTTests.token(JWTTests.claims(subject), signer: hmac, kid: "k1"), space: space)
            }
            let (alice, bob, carol, dave) = (try user("alice"), try user("bob"), try user("carol"), try user("dave"))
            try await alice.declare(["todo"])
            try await alice.push([todo("alice's")])
            try await bob.push([todo("bob's")])
            #expect(try await carol.pullAll().map(\.id) == [.text("alice's"), .text("bob's")])
            // Alice's personal space is apart from the shared one.
            #expect(try await user("alice", space: nil).pullAll().isEmpty)

            let body = try JSONEncoder().encode(PushRequest(clientID: carol.clientID, mutations: [SyncMutation(id: 1, changes: [todo("carol's")])]))
            // A reader's push is answered, its change refused with the reason; nothing is written.
            let refused = try await carol.pushAnswer(body)
            #expect(refused.status == 200)
            let result = try #require(try refused.decode(PushResponse.self).results.first)
            #expect(!result.applied && result.reason == #""carol" is a reader of space "family": a reader may not write"#)
            let refusals: [(SyncHTTP.Answer, String)] = [
                (try await carol.raw("PUT", SyncProtocol.tablesPath, body: Data(#"{"tables":["note"]}"#.utf8)),
                 #"a reader may pull, not declare the table "note""#),
                (try await dave.pullAnswer(), #""dave" is not a member of space "family""#),
                (try await dave.pushAnswer(body), #""dave" is not a member of space "family""#),
            ]
            for (answer, message) in refusals {
                #expect(answer.status == 403, "\(message): \(answer.status)")
                #expect(answer.error?.contains(message) == true, "\(answer.error ?? "")")
            }
            let opaque = try await server.client(space: "other", tables: ["todo"]).raw("GET", SyncProtocol.pullPath + "?space=family")
            #expect(opaque.status == 400 && opaque.error?.contains("an opaque token opens its own space only") == true, "\(opaque.error ?? "")")

            // Carol waits for news; removing her ends the wait with 403.
            let cursor = try await carol.pull().cursor
            let poll = Task { try await carol.pullAnswer(after: cursor, wait: 50) }
            try await Task.sleep(for: .milliseconds(500))
            let removed = try await Self.space(["remove-member", "--space", "family", "--user", "carol"], postgres: server.database)
            #expect(removed.status == 0, "\(removed.stderr)")
            let ended = try await poll.value
            #expect(ended.status == 403 && ended.error?.contains(#""carol" is not a member of space "family""#) == true,
                    "\(ended.status) \(ended.error ?? "")")
            #expect(try await carol.pullAnswer().status == 403)
            #expect(try await bob.pullAll().count == 2)
        }
    }
    @Test("two owners removed at once: one removal is refused, the space keeps an owner", .timeLimit(.minutes(1)))
    func concurrentOwnerRemovals() async throws {
        let cluster = try await PostgresCluster.shared()
        let database = try await cluster.createDatabase()
        let logger = { var logger = Logger(label: "test"); logger.logLevel = .error; return logger }()
        let client = PostgresClient(configuration: try PostgresURL(database).clientConfiguration, backgroundLogger: logger)
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask { await client.run() }
            try await Schema.migrate(client, logger: logger)
            for round in 0..<5 {
                let space = "family\(round)"
                try await Members.add(space: space, subject: "alice", role: .owner, client: client, logger: logger)
                try await Members.add(space: space, subject: "bob", role: .owner, client: client, logger: logger)
                let outcomes = await withTaskGroup(of: Bool.self) { removals in
                    for user in ["alice", "bob"] {
                        removals.addTask { (try? await Members.remove(space: space, subject: user, client: client, logger: logger)) != nil }
                    }
                    return await removals.reduce(into: [Bool]()) { $0.append($1) }
                }
                #expect(outcomes.filter { $0 }.count == 1, "\(space): \(outcomes)")
                #expect(try await Members.list(space: space, client: client, logger: logger).map(\.role) == [.owner])
            }
            group.cancelAll()
        }
    }
}
