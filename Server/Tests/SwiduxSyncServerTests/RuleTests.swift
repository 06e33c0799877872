import Crypto
import Foundation
import PostgresTestSupport
import SwiduxSyncServer
import SwiduxSyncWire
import Testing

/// The operator's rules (``SyncRules``): per table, a closure that accepts, refuses with a
/// reason, or rewrites each pushed change, in the push's transaction; a refusal never fails
/// the rest of the push, and the device gets the server's row back with the reason.
@Suite("Rules")
struct RuleTests {
    /// A todo's title: 1 to 500 characters.
    static let titles: SyncRules = SyncRules(["todo": { input in
        guard let after = input.after else { return .accept }
        guard case .text(let title)? = after["title"], (1...500).contains(title.count) else {
            return .refuse(reason: "a title has 1 to 500 characters")
        }
        return .accept
    }])

    private func columns(_ client: SyncHTTP, _ id: String) async throws -> [String: SyncValue]? {
        let row = try await client.pullAll().last(where: { $0.id == .text(id) })
        return row?.deleted == false ? row?.columns : nil
    }

    @Test("a rule refusing one row of a push of ten: nine applied, one refused with its reason and the server's row")
    func oneOfTen() async throws {
        try await TestServer.with(rules: Self.titles) { server in
            let device = try await server.client(space: "home")
            let inserted = try await device.push((0..<10).map { todo("\($0)", title: "task \($0)") })
            #expect(inserted.results.allSatisfy { $0.applied })
            let versions = inserted.results.map(\.current.version)
            // Ten updates in one mutation; the sixth empties its title.
            let updates = (0..<10).map { todo("\($0)", .update, title: $0 == 5 ? "" : "task \($0) done", base: versions[$0]) }
            let answer = try await device.push(PushRequest(clientID: device.clientID,
                                                           mutations: [SyncMutation(id: device.mutationID(), changes: updates)],
                                                           resultColumns: false))
            #expect(answer.results.count == 10)
            #expect(answer.results.filter { $0.applied }.count == 9)
            let refused = try #require(answer.results.first { !$0.applied })
            #expect(refused.id == .text("5"))
            #expect(refused.reason == "a title has 1 to 500 characters")
            // The server's row, with its columns although the request asked for none: the device takes it.
            #expect(refused.current.version == versions[5] && !refused.current.deleted)
            #expect(refused.current.columns == ["title": .text("task 5"), "done": .integer(0)])
            #expect(answer.results.filter { $0.applied }.allSatisfy { $0.reason == nil && $0.current.columns == nil })
            #expect(try await columns(device, "5")?["title"] == .text("task 5"))
            #expect(try await columns(device, "4")?["title"] == .text("task 4 done"))
            // The raw answer carries the reason under the extension member only for the refused result.
            let raw = try await device.pushAnswer(try JSONEncoder().encode(PushRequest(clientID: device.clientID, mutations: [
                SyncMutation(id: device.mutationID(), changes: [todo("6", .update, title: "", base: answer.results[6].current.version)])])))
            #expect(String(decoding: raw.body, as: UTF8.self).contains(#""ext":{"reason":"a title has 1 to 500 characters"}"#))
        }
    }

    @Test("a refused insert of a new row is answered a tombstone of version 0 (the device deletes it); a replay answers the server's row and the reason")
    func refusedInsertAndReplay() async throws {
        try await TestServer.with(rules: Self.titles) { server in
            let device = try await server.client(space: "home")
            let base = try await device.push([todo("kept", title: "kept")]).results[0].current.version
            let mutation = SyncMutation(id: device.mutationID(), changes: [todo("new", title: ""), todo("kept", .update, title: "", base: base)])
            let request = PushRequest(clientID: device.clientID, mutations: [mutation])
            let first = try await device.push(request)
            #expect(first.results.map(\.applied) == [false, false])
            #expect(first.results[0].current.deleted && first.results[0].current.version == 0)
            #expect(first.results[0].reason == "a title has 1 to 500 characters")
            #expect(try await device.pullAll().map(\.id) == [.text("kept")])
            // The same request again (its answer was lost): the rows as the server holds them, with
            // the first answer's reasons.
            let replay = try await device.push(request)
            #expect(replay.results.map(\.applied) == [false, false])
            #expect(replay.results[0].current.deleted)
            #expect(replay.results[1].current.columns?["title"] == .text("kept") && !replay.results[1].current.deleted)
            #expect(replay.results.map(\.reason) == ["a title has 1 to 500 characters", "a title has 1 to 500 characters"])
            // A mutation with an applied change and a refused one, replayed: the reason only where it was refused.
            let mixed = PushRequest(clientID: device.clientID, mutations: [SyncMutation(id: device.mutationID(), changes: [
                todo("other", title: "fine"), todo("empty", title: "")])])
            #expect(try await device.push(mixed).results.map(\.reason) == [nil, "a title has 1 to 500 characters"])
            let mixedReplay = try await device.push(mixed)
            #expect(mixedReplay.results.map(\.applied) == [true, false])
            #expect(mixedReplay.results.map(\.reason) == [nil, "a title has 1 to 500 characters"])
        }
    }

    @Test("a rewrite is written and answered: the device takes the rule's row (an insert, a merged update, a delete that keeps the row)")
    func rewrite() async throws {
        let rules = SyncRules(["todo": { input in
            guard var after = input.after, case .text(let title)? = after["title"] else { return .accept }
            after["title"] = .text(title.trimmingCharacters(in: .whitespaces))
            after["checked"] = .integer(1)
            return .rewrite(after)
        }])
        try await TestServer.with(rules: rules) { server in
            let device = try await server.client(space: "home")
            let answer = try await device.push(PushRequest(clientID: device.clientID, mutations: [SyncMutation(
                id: device.mutationID(), changes: [todo("1", title: "  padded  ")])], resultColumns: false))
            #expect(answer.results[0].applied && answer.results[0].reason == nil)
            let rewritten: [String: SyncValue] = ["title": .text("padded"), "done": .integer(0), "checked": .integer(1)]
            #expect(answer.results[0].current.columns == rewritten)
            #expect(try await columns(device, "1") == rewritten)
            // An update is rewritten from the merged row.
            let update = try await device.push([SyncChange(table: "todo", id: .text("1"), kind: .update, columns: ["done": .integer(1)],
                                                           baseVersion: answer.results[0].current.version)])
            #expect(update.results[0].current.columns == ["title": .text("padded"), "done": .integer(1), "checked": .integer(1)])
        }
        // A delete rewritten keeps the row, with the rule's columns.
        let archive = SyncRules(["todo": { input in
            guard input.isDelete, var row = input.before else { return .accept }
            row["archived"] = .integer(1)
            return .rewrite(row)
        }])
        try await TestServer.with(rules: archive) { server in
            let device = try await server.client(space: "home")
            let version = try await device.push([todo("1", title: "old")]).results[0].current.version
            let answer = try await device.push([todo("1", .delete, base: version)])
            #expect(answer.results[0].applied && !answer.results[0].current.deleted)
            #expect(answer.results[0].current.columns == ["title": .text("old"), "done": .integer(0), "archived": .integer(1)])
            #expect(try await columns(device, "1")?["archived"] == .integer(1))
        }
    }

    @Test("a rule that throws refuses its change with the error's description; the rest of the push is applied")
    func throwingRule() async throws {
        struct Unreachable: Error, CustomStringConvertible { var description: String { "the billing service is unreachable" } }
        let rules = SyncRules(["todo": { input in
            if input.id == .text("b") { throw Unreachable() }
            return .accept
        }])
        try await TestServer.with(rules: rules) { server in
            let device = try await server.client(space: "home")
            let answer = try await device.push([todo("a"), todo("b"), todo("c")])
            #expect(answer.results.map(\.applied) == [true, false, true])
            #expect(answer.results[1].reason == "the billing service is unreachable")
            #expect(try await device.pullAll().map(\.id) == [.text("a"), .text("c")])
        }
    }

    @Test("a refused delete: the row stays, and the device gets it back with its columns")
    func refusedDelete() async throws {
        let rules = SyncRules(["todo": { input in input.isDelete ? .refuse(reason: "todos are archived, not deleted") : .accept }])
        try await TestServer.with(rules: rules) { server in
            let device = try await server.client(space: "home")
            let version = try await device.push([todo("1", title: "keep me")]).results[0].current.version
            let answer = try await device.push([todo("1", .delete, base: version)])
            #expect(!answer.results[0].applied)
            #expect(answer.results[0].reason == "todos are archived, not deleted")
            #expect(answer.results[0].current == SyncRow(table: "todo", id: .text("1"), version: version, deleted: false,
                                                         columns: ["title": .text("keep me"), "done": .integer(0)]))
            #expect(try await columns(device, "1")?["title"] == .text("keep me"))
        }
    }

    @Test("a reader's push is answered per change, each refused with the reason; rules see the user, role and space, and read other rows")
    func readerAndInput() async throws {
        let hmac = JWTTests.Signer.hmac(SymmetricKey(size: .bits256))
        let jwt = try JWTConfiguration(jwks: try JWTTests.keySet([(hmac, "k1")]))
        // An item may only move to a list the user can write (its editors, one subject a line).
        let rules = SyncRules(["todo": { input in
            guard case .text(let listID)? = input.after?["list"], input.before?["list"] != input.after?["list"] else { return .accept }
            guard let list = try await input.row("list", id: .text(listID)) else { return .refuse(reason: "no list \(listID)") }
            guard case .text(let editors)? = list["editors"], let user = input.user,
                  editors.split(separator: "\n").contains(Substring(user)) else {
                return .refuse(reason: "\(input.user ?? "this token") (\(input.role.rawValue) of \(input.space)) may not write list \(listID)")
            }
            return .accept
        }])
        try await TestServer.with(jwt: jwt, rules: rules) { server in
            for (user, role) in [("alice", "owner"), ("bob", "writer"), ("carol", "reader")] {
                let added = try await SpaceMemberTests.space(["add-member", "--space", "family", "--user", user, "--role", role],
                                                             postgres: server.database)
                #expect(added.status == 0, "\(added.stderr)")
            }
            func user(_ subject: String) throws -> SyncHTTP {
                SyncHTTP(base: server.url, token: try JWTTests.token(JWTTests.claims(subject), signer: hmac, kid: "k1"), space: "family")
            }
            let (alice, bob, carol) = (try user("alice"), try user("bob"), try user("carol"))
            try await alice.declare(["todo", "list"])
            // A rule reads the rows of earlier mutations, not those of the change's own: the
            // item in the lists' mutation finds no list.
            let lists = try await alice.push([SyncChange(table: "list", id: .text("home"), kind: .insert, columns: ["editors": .text("alice\nbob")]),
                                              SyncChange(table: "list", id: .text("work"), kind: .insert, columns: ["editors": .text("alice")]),
                                              SyncChange(table: "todo", id: .text("t"), kind: .insert, columns: ["list": .text("home")])])
            #expect(lists.results.map(\.applied) == [true, true, false])
            #expect(lists.results[2].reason == "no list home")
            let base = try await alice.push([SyncChange(table: "todo", id: .text("t"), kind: .insert, columns: ["list": .text("home")])])
                .results[0].current.version
            // Bob may move the item within his lists, not to alice's.
            let moved = try await bob.push([SyncChange(table: "todo", id: .text("t"), kind: .update, columns: ["list": .text("work")], baseVersion: base)])
            #expect(!moved.results[0].applied)
            #expect(moved.results[0].reason == "bob (writer of family) may not write list work")
            #expect(moved.results[0].current.columns == ["list": .text("home")])
            let added = try await bob.push([SyncChange(table: "todo", id: .text("u"), kind: .insert, columns: ["list": .text("home")])])
            #expect(added.results[0].applied)

            // Carol reads: her table declaration of known tables is accepted, her push answered per change.
            try await carol.declare(["todo"])
            let pushed = try await carol.push([SyncChange(table: "todo", id: .text("t"), kind: .update, columns: ["list": .text("home")], baseVersion: base),
                                               todo("carol's")])
            #expect(pushed.results.map(\.applied) == [false, false])
            #expect(pushed.results.allSatisfy { $0.reason == #""carol" is a reader of space "family": a reader may not write"# })
            #expect(pushed.results[0].current.columns == ["list": .text("home")] && pushed.results[0].current.version == base)
            #expect(pushed.results[1].current.deleted && pushed.results[1].current.version == 0)
            #expect(try await carol.pullAll().map(\.id).sorted { $0.key < $1.key } == [.text("home"), .text("t"), .text("u"), .text("work")])
            let undeclared = try await carol.raw("PUT", SyncProtocol.tablesPath, body: Data(#"{"tables":["secret"]}"#.utf8))
            #expect(undeclared.status == 403 && undeclared.error?.contains("a reader may pull, not declare the table \"secret\"") == true,
                    "\(undeclared.status) \(undeclared.error ?? "")")
        }
    }
}
