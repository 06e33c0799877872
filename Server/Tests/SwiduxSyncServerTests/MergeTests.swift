import Foundation
import Logging
import PostgresNIO
import PostgresTestSupport
@testable import SwiduxSyncServer
import SwiduxSyncWire
import Testing

/// Issue 43: the server merges an update by column, keeps the columns it does not name, and
/// records a conflict for a value a later push replaced without having seen it.
@Suite("Merge by column")
struct MergeTests {
    private func row(_ id: String, _ kind: SyncChange.Kind, _ columns: [String: SyncValue], base: Int64? = nil) -> SyncChange {
        SyncChange(table: "todo", id: .text(id), kind: kind, columns: columns, baseVersion: base)
    }

    private func conflicts(of client: SyncHTTP, after: Int64 = 0) async throws -> ConflictsResponse {
        let answer = try await client.raw("GET", SyncProtocol.conflictsPath + "?client=\(client.clientID)&after=\(after)")
        guard answer.status == 200 else { throw SyncHTTPError("conflicts: \(answer.status) \(answer.error ?? "")") }
        return try answer.decode(ConflictsResponse.self)
    }

    private func columns(_ client: SyncHTTP, _ id: String) async throws -> [String: SyncValue]? {
        try await client.pullAll().last(where: { $0.id == .text(id) })?.columns
    }

    @Test("two devices change different columns of a row: both changes stay, no conflict")
    func differentColumns() async throws {
        try await TestServer.with { server in
            let a = try await server.client(space: "home")
            let b = try await server.client(space: "home")
            let base = try await a.push([row("1", .insert, ["title": .text("buy milk"), "done": .integer(0)])]).results[0].current.version
            try await a.push([row("1", .update, ["title": .text("buy oat milk")], base: base)])
            let answer = try await b.push(PushRequest(clientID: b.clientID, mutations: [SyncMutation(
                id: b.mutationID(), changes: [row("1", .update, ["done": .integer(1)], base: base)])], resultColumns: false))
            #expect(answer.results[0].applied)
            #expect(answer.conflicts == 0)
            // The answer carries the merged row: b had not seen a's title.
            #expect(answer.results[0].current.columns == ["title": .text("buy oat milk"), "done": .integer(1)])
            #expect(try await columns(a, "1") == ["title": .text("buy oat milk"), "done": .integer(1)])
            #expect(try await conflicts(of: a).conflicts.isEmpty)
            #expect(try await conflicts(of: b).conflicts.isEmpty)
        }
    }

    @Test("the same column on two devices: the later push wins and the replaced value is listed for its writer")
    func sameColumn() async throws {
        try await TestServer.with { server in
            let a = try await server.client(space: "home")
            let b = try await server.client(space: "home")
            let other = try await server.client(space: "elsewhere")
            let base = try await a.push([row("1", .insert, ["title": .text("call mum"), "done": .integer(0)])]).results[0].current.version
            let first = try await a.push([row("1", .update, ["title": .text("call mum at 6")], base: base)]).results[0].current.version
            let later = try await b.push([row("1", .update, ["title": .text("call mum on Sunday")], base: base)])
            #expect(later.results[0].applied)
            #expect(try await columns(a, "1")?["title"] == .text("call mum on Sunday"))
            let listed = try await conflicts(of: a)
            #expect(listed.conflicts.count == 1)
            let conflict = try #require(listed.conflicts.first)
            #expect(conflict.table == "todo" && conflict.row == .text("1") && conflict.column == "title")
            #expect(conflict.kept == .text("call mum on Sunday") && conflict.replaced == .text("call mum at 6"))
            #expect(conflict.version == later.results[0].current.version && conflict.replacedVersion == first)
            #expect(conflict.keptBy == b.clientID)
            #expect(abs(Double(conflict.at) / 1000 - Date().timeIntervalSince1970) < 120)
            #expect(listed.cursor == conflict.id && !listed.hasMore)
            #expect(try await conflicts(of: a, after: conflict.id).conflicts.isEmpty)
            // Only the device whose value was replaced has it; every answer shows the space's mark.
            #expect(try await conflicts(of: b).conflicts.isEmpty)
            #expect(later.conflicts == conflict.id)
            #expect(try await a.pull().conflicts == conflict.id)
            // Another space sees none of it.
            #expect(try await other.pull().conflicts == 0)
            let foreign = try await other.raw("GET", SyncProtocol.conflictsPath + "?client=\(a.clientID)")
            #expect(try foreign.decode(ConflictsResponse.self).conflicts.isEmpty)
        }
    }

    @Test("no conflict: the same value, the same client, or a push that had seen the value")
    func notConflicts() async throws {
        try await TestServer.with { server in
            let a = try await server.client(space: "home")
            let b = try await server.client(space: "home")
            let base = try await a.push([row("1", .insert, ["title": .text("x"), "done": .integer(0)])]).results[0].current.version
            let v2 = try await a.push([row("1", .update, ["title": .text("same")], base: base)]).results[0].current.version
            try await b.push([row("1", .update, ["title": .text("same")], base: base)])           // the same value
            let v4 = try await b.push([row("1", .update, ["title": .text("b1")], base: v2)]).results[0].current.version   // had seen it
            try await b.push([row("1", .update, ["title": .text("b2")], base: base)])            // its own value (stale base)
            try await a.push([row("1", .update, ["done": .integer(1)], base: v4)])
            #expect(try await conflicts(of: a).conflicts.isEmpty)
            #expect(try await conflicts(of: b).conflicts.isEmpty)
            #expect(try await columns(a, "1") == ["title": .text("b2"), "done": .integer(1)])
        }
    }

    @Test("a column the pushing app lacks stays; an insert's columns never conflict")
    func unknownColumnStays() async throws {
        try await TestServer.with { server in
            let newer = try await server.client(space: "home")
            let older = try await server.client(space: "home")
            let base = try await newer.push([row("1", .insert, ["title": .text("t"), "done": .integer(0), "priority": .integer(3)])])
                .results[0].current.version
            // The older app names every column it knows (a whole row), never `priority`.
            let answer = try await older.push(PushRequest(clientID: older.clientID, mutations: [SyncMutation(
                id: older.mutationID(), changes: [row("1", .update, ["title": .text("t"), "done": .integer(1)], base: base)])],
                resultColumns: false))
            #expect(answer.results[0].current.columns == nil)   // nothing changed since its base
            #expect(try await columns(newer, "1") == ["title": .text("t"), "done": .integer(1), "priority": .integer(3)])
            // An update of a row the server does not have writes what it names.
            try await older.push([row("2", .update, ["title": .text("new")], base: nil)])
            #expect(try await columns(newer, "2") == ["title": .text("new")])
            #expect(try await conflicts(of: newer).conflicts.isEmpty)
        }
    }

    @Test("a large mutation of updates merges every row (no copy), and pull ?tables= filters")
    func largeMerge() async throws {
        try await TestServer.with { server in
            let a = try await server.client(space: "home")
            let b = try await server.client(space: "home")
            let ids = (0..<300).map { "r\($0)" }
            let created = try await a.push(ids.map { row($0, .insert, ["title": .text($0), "done": .integer(0), "note": .text("n")]) })
            let bases = Dictionary(uniqueKeysWithValues: created.results.map { ($0.id, $0.current.version) })
            try await a.push(ids.map { row($0, .update, ["title": .text($0 + "!")], base: bases[.text($0)]) })
            let answer = try await b.push(ids.map { row($0, .update, ["done": .integer(1), "title": .text($0 + "?")], base: bases[.text($0)]) })
            #expect(answer.results.allSatisfy { $0.applied && $0.current.columns?["note"] == .text("n") })
            let rows = try await a.pullAll()
            #expect(rows.count == 300)
            #expect(rows.allSatisfy { $0.columns?["done"] == .integer(1) && $0.columns?["note"] == .text("n") })
            #expect(try await conflicts(of: a).conflicts.count == 300)
            // `tables=` leaves the other tables out.
            try await a.push([SyncChange(table: "list", id: .text("l"), kind: .insert, columns: ["name": .text("l")])])
            let filtered = try await a.raw("GET", SyncProtocol.pullPath + "?after=0&limit=10000&tables=list")
            #expect(try filtered.decode(PullResponse.self).rows.map(\.table) == ["list"])
            let invalid = try await a.raw("GET", SyncProtocol.pullPath + "?after=0&tables=swidux_x")
            #expect(invalid.status == 400)
        }
    }

    @Test("ColumnMerge: columns over the stored ones, names byte for byte, meta versions, conflicts")
    func columnMerge() throws {
        let composed = "caf\u{E9}", decomposed = "cafe\u{301}"
        let first = try ColumnMerge.merge(stored: #"{"a":1,"b":"x","caf\u00e9":2}"#, meta: nil, rowVersion: 5,
                                          pushed: #"{"b":"y","cafe\u0301":3}"#, baseVersion: 5, client: 1)
        #expect(first.columns == "{\"a\":1,\"b\":\"y\",\"\(composed)\":2,\"\(decomposed)\":3}")
        #expect(first.meta == "{\"b\":[0,1],\"\(decomposed)\":[0,1]}")
        #expect(first.conflicts.isEmpty)
        // Another client, based before version 9 (the row's, which wrote b): b conflicts.
        let second = try ColumnMerge.merge(stored: first.columns, meta: first.meta, rowVersion: 9, pushed: #"{"b":"z","a":1}"#,
                                           baseVersion: 7, client: 2)
        #expect(second.columns == "{\"a\":1,\"b\":\"z\",\"\(composed)\":2,\"\(decomposed)\":3}")
        #expect(second.meta == "{\"a\":[0,2],\"b\":[0,2],\"\(decomposed)\":[9,1]}")
        #expect(second.conflicts == [ColumnMerge.Conflict(column: "b", kept: #""z""#, replaced: #""y""#, replacedClient: 1, replacedVersion: 9)])
    }

    @Test("migration 5 upgrades an existing database: clients get a number, rows stay (written by their insert: no meta)")
    func migrationFive() async throws {
        let cluster = try await PostgresCluster.shared()
        let database = try await cluster.createDatabase()
        let seen = try await cluster.withConnection(database: database) { connection, logger in
            try await connection.query("CREATE TABLE sync_schema (version integer NOT NULL)", logger: logger)
            for migration in Schema.migrations.prefix(4) {
                for statement in migration { try await connection.query(statement, logger: logger) }
            }
            try await connection.query("INSERT INTO sync_schema (version) VALUES (4)", logger: logger)
            try await connection.query("INSERT INTO sync_spaces (name) VALUES ('old')", logger: logger)
            try await connection.query("INSERT INTO sync_clients (space, client_id, last_mutation) VALUES (1, 'c1', 3), (1, 'c2', 1)", logger: logger)
            try await connection.query("""
                INSERT INTO sync_rows (space, tbl, rid, id, version, deleted, columns)
                VALUES (1, 'todo', 't:a', '"a"', nextval('sync_version'), false, '{"title":"a","done":0}')
                """, logger: logger)
            let client = PostgresClient(configuration: try PostgresURL(database).clientConfiguration, backgroundLogger: logger)
            return try await withThrowingTaskGroup(of: Void.self) { group in
                group.addTask { await client.run() }
                defer { group.cancelAll() }
                try await Schema.migrate(client, logger: logger)
                var seen: [String] = []
                for try await (id, ref) in try await client.query("SELECT client_id, ref FROM sync_clients ORDER BY client_id", logger: logger)
                    .decode((String, Int64).self) { seen.append("\(id) \(ref > 0)") }
                for try await (count, meta) in try await client.query("SELECT (SELECT count(*)::int FROM sync_conflicts), (SELECT meta FROM sync_rows)", logger: logger)
                    .decode((Int, String?).self) { seen.append("\(count) \(meta ?? "NULL")") }
                return seen
            }
        }
        #expect(seen == ["c1 true", "c2 true", "0 NULL"])
    }

    @Test("a conflict request without a client id is refused with 400")
    func conflictsNeedAClient() async throws {
        try await TestServer.with { server in
            let a = try await server.client(space: "home")
            #expect(try await a.raw("GET", SyncProtocol.conflictsPath).status == 400)
            #expect(try await a.with(token: "nope").raw("GET", SyncProtocol.conflictsPath + "?client=x").status == 401)
        }
    }
}
