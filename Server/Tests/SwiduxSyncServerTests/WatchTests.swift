import Foundation
import SwiduxSyncWire
import Testing

/// One long poll over all of a user's spaces: the poll on the personal space also watches the
/// shared spaces the device follows (`watch=<cursor>:<space>`), and ends when one has news.
@Suite("Long poll: watched spaces")
struct WatchTests {
    /// The query of a long poll on the personal space after `cursor`, watching `items`.
    static func poll(after cursor: Int64, wait: Int, watching items: [String]) -> String {
        SyncProtocol.pullPath + "?after=\(cursor)&wait=\(wait)" + items.map {
            "&\(SyncProtocol.watchParameter)=" + $0.addingPercentEncoding(withAllowedCharacters: .alphanumerics)!
        }.joined()
    }

    /// `owner` makes the shared space `name` with `members` as writers, and declares the table `todo` there.
    static func share(_ name: String, by owner: SyncHTTP, with members: [String] = []) async throws -> SyncHTTP {
        #expect(try await owner.raw("POST", SyncProtocol.spacesPath, body: SpacesTests.newSpace(name)).status == 201)
        for member in members {
            let added = try await owner.raw("POST", SyncProtocol.membersPath(of: name), body: Data(#"{"user":"\#(member)","role":"writer"}"#.utf8))
            #expect(added.status == 204, "\(added.error ?? "")")
        }
        let shared = SyncHTTP(base: owner.base, token: owner.token, space: name)
        try await shared.declare(["todo"])
        return shared
    }

    @Test("a push to a watched space ends the long poll on the personal space, with its empty page", .timeLimit(.minutes(2)))
    func pushEndsPoll() async throws {
        try await SpacesTests.withUsers { server, user in
            let (alice, bob) = (try user("alice"), try user("bob"))
            let family = try await Self.share("family", by: alice, with: ["bob"])
            try await family.push([todo("1")])
            let cursor = try await bob.pull().cursor
            let familyCursor = try await SyncHTTP(base: bob.base, token: bob.token, space: "family").pull().cursor
            let start = ContinuousClock.now
            let poll = Task {
                try await bob.raw("GET", Self.poll(after: cursor, wait: 20, watching: [SyncProtocol.watchItem(space: "family", cursor: familyCursor)]))
            }
            try await Task.sleep(for: .milliseconds(500))
            try await family.push([todo("2")])
            let answer = try await poll.value
            // Liveness, not speed: the poll ended on the push, not at the end of its wait.
            #expect(ContinuousClock.now - start < .seconds(15))
            #expect(answer.status == 200, "\(answer.error ?? "")")
            #expect(try answer.decode(PullResponse.self).rows.isEmpty)
            #expect(try answer.decode(PullResponse.self).cursor == cursor)
        }
    }

    @Test("a watched space already past its cursor answers at once, a reader's too; a space name may hold colons; a shared space's poll may watch too",
          .timeLimit(.minutes(2)))
    func oldCursorAnswersAtOnce() async throws {
        try await SpacesTests.withUsers { server, user in
            let (alice, bob) = (try user("alice"), try user("bob"))
            let team = try await Self.share("team:2026", by: alice, with: ["bob"])
            try await team.push([todo("1")])
            _ = try await Self.share("family", by: alice, with: ["bob"])
            // A reader's watch counts as any member's.
            let club = try await Self.share("club", by: alice)
            try await club.push([todo("1")])
            let reader = try await alice.raw("POST", SyncProtocol.membersPath(of: "club"), body: Data(#"{"user":"bob","role":"reader"}"#.utf8))
            #expect(reader.status == 204, "\(reader.error ?? "")")
            let cursor = try await bob.pull().cursor
            let polls = [
                Self.poll(after: cursor, wait: 20, watching: [SyncProtocol.watchItem(space: "team:2026", cursor: 0)]),
                Self.poll(after: cursor, wait: 20, watching: ["0:family", "0:club"]),
                Self.poll(after: cursor, wait: 20, watching: ["0:nowhere", "0:family", "0:team:2026"]),
            ]
            for query in polls {
                let start = ContinuousClock.now
                let answer = try await bob.raw("GET", query)
                #expect(ContinuousClock.now - start < .seconds(15), "\(query)")
                #expect(answer.status == 200, "\(query): \(answer.error ?? "")")
                #expect(try answer.decode(PullResponse.self).rows.isEmpty, "\(query)")
            }
            // The shared space family's poll, watching team.
            let familyPoll = SyncHTTP(base: bob.base, token: bob.token, space: "family")
            let start = ContinuousClock.now
            let answer = try await familyPoll.raw("GET", Self.poll(after: 0, wait: 20, watching: ["0:team:2026"]))
            #expect(ContinuousClock.now - start < .seconds(15))
            #expect(answer.status == 200, "\(answer.error ?? "")")
            #expect(try answer.decode(PullResponse.self).rows.isEmpty)
        }
    }

    @Test("a space the caller is not a member of, or any watch of an opaque token, neither ends the poll nor shows in its answer",
          .timeLimit(.minutes(2)))
    func strangersIgnored() async throws {
        try await SpacesTests.withUsers { server, user in
            let (carol, bob) = (try user("carol"), try user("bob"))
            let club = try await Self.share("club", by: carol)
            try await club.push([todo("secret")])
            let cursor = try await bob.pull().cursor
            let kitchen = try await server.client(space: "kitchen")
            let kitchenCursor = try await kitchen.pull().cursor
            let cases: [(SyncHTTP, String)] = [
                (bob, Self.poll(after: cursor, wait: 2, watching: ["0:club", "0:nowhere"])),
                (kitchen, Self.poll(after: kitchenCursor, wait: 2, watching: ["0:club", "0:user:carol"])),
            ]
            for (client, query) in cases {
                let plain = try await client.raw("GET", SyncProtocol.pullPath + "?after=\(client === bob ? cursor : kitchenCursor)")
                let start = ContinuousClock.now
                let answer = try await client.raw("GET", query)
                // The poll waited for its own space, as if the items were not there.
                #expect(ContinuousClock.now - start >= .milliseconds(1500), "\(query)")
                #expect(answer.status == 200, "\(query): \(answer.error ?? "")")
                #expect(answer.body == plain.body, "\(query)")
                #expect(!String(decoding: answer.body, as: UTF8.self).contains("secret"), "\(query)")
            }
        }
    }

    @Test("malformed watch items and more than the limit are refused (400) naming them", .timeLimit(.minutes(2)))
    func malformedItems() async throws {
        try await SpacesTests.withUsers { server, user in
            let bob = try user("bob")
            let malformed = "malformed \(SyncProtocol.watchParameter) item"
            let cases: [([String], String)] = [
                (["family"], #"\#(malformed) "family""#),
                (["-1:family"], #"\#(malformed) "-1:family""#),
                (["+1:family"], #"\#(malformed) "+1:family""#),
                (["x:family"], #"\#(malformed) "x:family""#),
                (["0:"], #"\#(malformed) "0:""#),
                ([":family"], #"\#(malformed) ":family""#),
                (["99999999999999999999:family"], malformed),
                (["0:" + String(repeating: "x", count: 201)], malformed),
                (["0:family", "1:club", "2"], #"\#(malformed) "2""#),
                ((0...SyncProtocol.maxWatchedSpaces).map { "0:space\($0)" }, "at most \(SyncProtocol.maxWatchedSpaces) spaces per pull"),
            ]
            for (items, message) in cases {
                let answer = try await bob.raw("GET", Self.poll(after: 0, wait: 20, watching: items))
                #expect(answer.status == 400, "\(items.prefix(3)): \(answer.status)")
                #expect(answer.error?.contains(message) == true, "\(answer.error ?? "")")
            }
            // The limit itself is accepted (here with a space that has news, to answer at once).
            _ = try await Self.share("family", by: bob).push([todo("1")])
            let items = (1..<SyncProtocol.maxWatchedSpaces).map { "0:space\($0)" } + ["0:family"]
            let answer = try await bob.raw("GET", Self.poll(after: 0, wait: 20, watching: items))
            #expect(answer.status == 200, "\(answer.error ?? "")")
        }
    }
}
