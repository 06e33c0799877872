import Foundation
import PostgresTestSupport
import SwiduxSyncWire
import Testing

/// Issue 29 items 3, 5 and 7 at the wire: exact acknowledgements, replays, conflicts,
/// the space's end and the scope.
@Suite("Mutation identity, replays and scope")
struct MutationIdentityTests {
    @Test("a used mutation id with another content is refused with 409 mutation_conflict and stores nothing (item 3)")
    func usedIDWithAnotherContentIsRefused() async throws {
        try await TestServer.with { server in
            let a = try await server.client(space: "home", id: "shared")
            let first = try await a.push(PushRequest(clientID: "shared", mutations: [SyncMutation(id: 1, changes: [todo("1", title: "first")])]))
            #expect(first.acknowledged == [1])
            let before = try await server.snapshot()
            let answer = try await a.pushAnswer(try JSONEncoder().encode(
                PushRequest(clientID: "shared", mutations: [SyncMutation(id: 1, changes: [todo("2", title: "second")])])))
            #expect(answer.status == 409, "\(answer.status) \(answer.error ?? "")")
            let body = try answer.decode(SyncErrorBody.self)
            #expect(body.code == .mutationConflict)
            #expect(body.error.contains("mutation 1"))
            #expect(try await server.snapshot() == before)
            // A later new mutation in the same request does not get through either.
            let mixed = try await a.pushAnswer(try JSONEncoder().encode(PushRequest(clientID: "shared", mutations: [
                SyncMutation(id: 1, changes: [todo("2", title: "second")]), SyncMutation(id: 2, changes: [todo("3")]),
            ])))
            #expect(mixed.status == 409)
            #expect(try await server.snapshot() == before)
            // Under a new client id the same change is applied.
            let fresh = try await a.push(PushRequest(clientID: "new", mutations: [SyncMutation(id: 1, changes: [todo("2", title: "second")])]))
            #expect(fresh.acknowledged == [1] && fresh.results.count == 1 && fresh.results[0].applied)
            #expect(Set(try await a.pullAll().map(\.id)) == [.text("1"), .text("2")])
        }
    }

    @Test("a replayed push (lost answer) gets the original results, applies nothing again (item 7)")
    func replayGetsOriginalResults() async throws {
        try await TestServer.with { server in
            let a = try await server.client(space: "home", id: "replayer")
            _ = try await a.push(PushRequest(clientID: "other", mutations: [SyncMutation(id: 1, changes: [todo("gone")])]))
            _ = try await a.push(PushRequest(clientID: "other", mutations: [SyncMutation(id: 2, changes: [todo("gone", .delete)])]))
            let request = PushRequest(clientID: "replayer", mutations: [
                SyncMutation(id: 1, changes: [todo("1"), todo("2", title: "two")]),
                SyncMutation(id: 2, changes: [todo("1", .update, title: "one"), todo("gone", .update, title: "stale", base: 1), todo("2", .delete)]),
            ])
            let first = try await a.push(request)
            #expect(first.results.map(\.applied) == [true, true, true, false, true])
            let before = try await server.snapshot()
            let replay = try await a.push(request)
            #expect(replay.acknowledged == [1, 2])
            #expect(replay.results == first.results)
            #expect(replay.lastMutationID == 2)
            #expect(try await server.snapshot() == before)
            // A replay of the first with a new third: the third is applied, the first answered again.
            let third = SyncMutation(id: 3, changes: [todo("3")])
            let mixed = try await a.push(PushRequest(clientID: "replayer", mutations: [request.mutations[1], third]))
            #expect(mixed.acknowledged == [2, 3])
            #expect(Array(mixed.results.prefix(3)) == Array(first.results.suffix(3)))
            #expect(mixed.results.count == 4 && mixed.results[3].applied)
        }
    }

    @Test("pulls report the space's end and the scope; a push from another scope is refused (items 4, 5)")
    func endAndScope() async throws {
        try await TestServer.with { server in
            let home = try await server.client(space: "home")
            let work = try await server.client(space: "work")
            let empty = try await home.pull()
            #expect(empty.end == 0)
            let pushed = try await home.push([todo("1"), todo("2")])
            let page = try await home.pull(after: 0, limit: 1)
            #expect(page.end == pushed.results.map(\.current.version).max())
            #expect(page.hasMore)
            // Another space's pushes do not move this space's end.
            _ = try await work.push([todo("w")])
            #expect(try await home.pull().end == page.end)
            let homeScope = try #require(page.scope)
            let workScope = try #require(try await work.pull().scope)
            #expect(homeScope != workScope)
            #expect(pushed.scope == homeScope)
            // A push claiming the home scope with the work token is refused, nothing stored.
            let before = try await server.snapshot()
            let answer = try await work.pushAnswer(try JSONEncoder().encode(
                PushRequest(clientID: work.clientID, mutations: [SyncMutation(id: 9, changes: [todo("x")])], scope: homeScope)))
            #expect(answer.status == 409)
            #expect(try answer.decode(SyncErrorBody.self).code == .scopeChanged)
            #expect(try await server.snapshot() == before)
        }
    }

    @Test("another database has another scope (a replaced server database, item 5)")
    func anotherDatabaseAnotherScope() async throws {
        let one = try await TestServer.with { server in try await server.client(space: "home").pull().scope }
        let two = try await TestServer.with { server in try await server.client(space: "home").pull().scope }
        #expect(one != nil && two != nil && one != two)
    }

    @Test("a mutation's stored hash is PostgreSQL's SHA-256 of its canonical JSON, as an earlier server stored it: a replay still matches (issue 31)")
    func hashIsTheCanonicalTextsSHA256() async throws {
        try await TestServer.with { server in
            let a = try await server.client(space: "home", id: "hasher")
            // Escapes, non-ASCII, a base version, a deletion, members given out of order.
            let request = PushRequest(clientID: "hasher", mutations: [SyncMutation(id: 1, changes: [
                todo("\u{E9}\"x", title: "a\nb"),
                SyncChange(table: "todo", id: .integer(-7), kind: .update, columns: ["title": .text("t"), "done": .integer(1)], baseVersion: 12),
                todo("gone", .delete, base: 1),
            ])])
            let first = try await a.push(request)
            #expect(first.acknowledged == [1])
            // The canonical JSON as the server before issue 31's change built it, hashed by PostgreSQL then.
            let canonical = #"{"changes":[{"columns":{"done":0,"title":"a\nb"},"id":"\#u{E9}\"x","kind":"insert","table":"todo"},"#
                + #"{"baseVersion":12,"columns":{"done":1,"title":"t"},"id":-7,"kind":"update","table":"todo"},"#
                + #"{"baseVersion":1,"id":"gone","kind":"delete","table":"todo"}],"id":1}"#
            let matches = try await server.cluster.withConnection(database: server.database) { connection, logger in
                var matches: [Bool] = []
                for try await match in try await connection.query(
                    "SELECT hash = sha256(convert_to(\(canonical), 'UTF8')) FROM sync_mutations WHERE client_id = 'hasher'", logger: logger
                ).decode(Bool.self) { matches.append(match) }
                return matches
            }
            #expect(matches == [true])
            let replay = try await a.push(request)
            #expect(replay.acknowledged == [1] && replay.results == first.results)
        }
    }
}
