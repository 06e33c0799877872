import Foundation
import Logging
import PostgresNIO
import PostgresTestSupport
@testable import SwiduxSyncServer
import SwiduxSyncWire
import Testing

/// Large mutations (issue 31 item 3): written with COPY when none of their rows exists
/// (``RowCopy``), with the upsert otherwise; the same answers and rows either way.
@Suite("Large pushes")
struct LargePushTests {
    /// More rows than ``RowCopy/minimumRows``.
    static let count = RowCopy.minimumRows * 2 + 7

    /// Awkward ids and columns: what COPY's text format escapes (backslash, tab, newline,
    /// carriage return), JSON escapes, and every id type.
    static func awkward(_ index: Int) -> SyncChange {
        let id: SyncValue = switch index % 4 {
        case 0: .text("row \\ \t \n \r \\N \"quoted\" é 🚀 \(index)")
        case 1: .integer(Int64(index) - 1000)
        case 2: .real(Double(index) + 0.25)
        default: .blob(Data([0, 9, 10, 13, 92, UInt8(index % 256)]))
        }
        switch index % 10 {
        case 3: return SyncChange(table: "list", id: id, kind: .delete)
        case 7: return SyncChange(table: "todo", id: id, kind: .update, columns: ["title": .text("updated \(index)")], baseVersion: 0)
        default:
            return SyncChange(table: index % 3 == 0 ? "list" : "todo", id: id, kind: .insert, columns: [
                "title": .text("tab\there\nnewline\r\\backslash \\N \(index)"), "n": .integer(Int64(index)), "r": .real(-0.5),
                "b": .blob(Data([92, 9, 10])), "none": .null, "back\\slash\tkey": .text("\\"),
            ])
        }
    }

    /// Every change's result matches it, and the pull gives the same rows with the same versions.
    static func check(_ changes: [SyncChange], _ response: PushResponse, pulled rows: [SyncRow]) {
        #expect(response.results.count == changes.count)
        #expect(response.results.map(\.id) == changes.map(\.id))
        #expect(response.results.allSatisfy { $0.applied })
        #expect(response.results.map(\.current.deleted) == changes.map { $0.kind == .delete })
        #expect(response.results.map(\.current.columns) == changes.map(\.columns))
        let versions = response.results.map(\.current.version)
        #expect(versions == versions.sorted() && Set(versions).count == versions.count, "versions in the changes' order")
        let byKey = Dictionary(uniqueKeysWithValues: rows.map { ("\($0.table)/\($0.id.key)", $0) })
        for (change, result) in zip(changes, response.results) {
            let row = byKey["\(change.table)/\(change.id.key)"]
            #expect(row == SyncRow(table: change.table, id: change.id, version: result.current.version,
                                   deleted: change.kind == .delete, columns: change.columns), "\(change.id)")
        }
    }

    @Test("a large first push: each row stored once, in order, its awkward id and columns intact, its version as answered")
    func firstPush() async throws {
        try await TestServer.with { server in
            let a = try await server.client(space: "home")
            let changes = (0..<Self.count).map(Self.awkward)
            let response = try await a.push(changes)
            let rows = try await a.pullAll()
            #expect(rows.count == changes.count)
            Self.check(changes, response, pulled: rows)
            #expect(rows.map(\.version) == response.results.map(\.current.version))
            // The same request again is a replay: the same answer, nothing written.
            let before = try await server.snapshot()
            let replay = try await a.push(PushRequest(clientID: a.clientID, mutations: [SyncMutation(id: 1, changes: changes)]))
            #expect(replay.results == response.results)
            #expect(try await server.snapshot() == before)
        }
    }

    @Test("a large push whose inserts meet known rows, live or deleted, upserts them: nothing lost, nothing twice")
    func insertsOfKnownRows() async throws {
        try await TestServer.with { server in
            let a = try await server.client(space: "home")
            let b = try await server.client(space: "home")
            // Another space's rows with the same ids are not this space's.
            let other = try await server.client(space: "work")
            try await other.push((0..<Self.count).map { todo("\($0)") })
            try await a.push([todo("5"), todo("17"), todo(String(Self.count - 1))])
            try await a.push([todo("17", .delete)])
            let changes = (0..<Self.count).map { todo("\($0)", title: "big \($0)") }
            let response = try await b.push(changes)
            let rows = try await a.pullAll()
            #expect(rows.count == changes.count)
            Self.check(changes, response, pulled: rows)
            let others = try await other.pullAll()
            // The other space's rows kept their titles (their ids).
            #expect(others.count == Self.count)
            #expect(others.allSatisfy { row in
                guard case .text(let id) = row.id else { return false }
                return row.columns?["title"] == .text(id)
            })
        }
    }

    /// The copy that meets a known row fails the transaction: the whole request is applied
    /// again with upserts, the mutations copied before it included.
    @Test("a request whose second large mutation meets a known row after the first was copied: both applied once, in order")
    func knownRowAfterACopiedMutation() async throws {
        try await TestServer.with { server in
            let a = try await server.client(space: "home")
            let b = try await server.client(space: "home")
            try await a.push([todo("known 3")])
            let first = (0..<Self.count).map { todo("new \($0)") }
            let second = (0..<Self.count).map { todo("known \($0)", title: "second \($0)") }
            let response = try await b.push(PushRequest(clientID: b.clientID, mutations: [
                SyncMutation(id: 1, changes: first), SyncMutation(id: 2, changes: second),
            ]))
            #expect(response.acknowledged == [1, 2])
            let rows = try await a.pullAll()
            #expect(rows.count == first.count + second.count)
            Self.check(first + second, response, pulled: rows)
            // Replayed: the same results, nothing applied again.
            #expect(try await b.push(PushRequest(clientID: b.clientID, mutations: [
                SyncMutation(id: 1, changes: first), SyncMutation(id: 2, changes: second),
            ])).results == response.results)
            #expect(try await a.pullAll().count == rows.count)
        }
    }

    @Test("a large push of updates and deletes of known rows: delete wins over a stale update, a tombstone deleted again keeps its version")
    func updatesOfKnownRows() async throws {
        try await TestServer.with { server in
            let a = try await server.client(space: "home")
            let first = try await a.push((0..<Self.count).map { todo("\($0)") })
            try await a.push([todo("1", .delete), todo("2", .delete)])
            let tombstones = try await a.pullAll().filter(\.deleted)
            #expect(tombstones.map(\.id) == [.text("1"), .text("2")])
            // 1: a stale update (refused); 2: deleted again (its version kept); the rest updated or deleted.
            var changes = [todo("1", .update, title: "stale", base: first.results[1].current.version), todo("2", .delete)]
            changes += (3..<Self.count).map { $0 % 5 == 0 ? todo("\($0)", .delete) : todo("\($0)", .update, title: "new \($0)") }
            let response = try await a.push(changes)
            #expect(response.results[0].applied == false && response.results[0].current.deleted)
            #expect(response.results[0].current.version == tombstones[0].version)
            #expect(response.results[1].applied && response.results[1].current.version == tombstones[1].version)
            let rows = try await a.pullAll()
            Self.check(Array(changes.dropFirst(2)), PushResponse(lastMutationID: response.lastMutationID,
                                                                 results: Array(response.results.dropFirst(2)),
                                                                 acknowledged: response.acknowledged, scope: response.scope),
                       pulled: rows)
            #expect(rows.first { $0.id == .text("0") }?.columns?["title"] == .text("0"))
        }
    }

    @Test("migration 4 gives an existing database sync_rows.version's default, keeping its rows")
    func migrationFour() async throws {
        let cluster = try await PostgresCluster.shared()
        let database = try await cluster.createDatabase()
        let defaults = try await cluster.withConnection(database: database) { connection, logger in
            // A database at version 3, as the previous server left it, with a row.
            try await connection.query("CREATE TABLE sync_schema (version integer NOT NULL)", logger: logger)
            for migration in Schema.migrations.prefix(3) {
                for statement in migration { try await connection.query(statement, logger: logger) }
            }
            try await connection.query("INSERT INTO sync_schema (version) VALUES (3)", logger: logger)
            try await connection.query("INSERT INTO sync_spaces (name) VALUES ('old')", logger: logger)
            try await connection.query("""
                INSERT INTO sync_rows (space, tbl, rid, id, version, deleted, columns)
                VALUES (1, 'todo', 'a', '"a"', nextval('sync_version'), false, '{}')
                """, logger: logger)
            let client = PostgresClient(configuration: try PostgresURL(database).clientConfiguration, backgroundLogger: logger)
            return try await withThrowingTaskGroup(of: Void.self) { group in
                group.addTask { await client.run() }
                defer { group.cancelAll() }
                try await Schema.migrate(client, logger: logger)
                var rows: [String] = []
                for try await (version, column, count) in try await client.query("""
                    SELECT (SELECT version FROM sync_schema), column_default, (SELECT count(*)::int FROM sync_rows)
                    FROM information_schema.columns WHERE table_name = 'sync_rows' AND column_name = 'version'
                    """, logger: logger).decode((Int, String?, Int).self) { rows.append("\(version) \(column ?? "none") \(count)") }
                return rows
            }
        }
        #expect(defaults == ["\(Schema.migrations.count) nextval('sync_version'::regclass) 1"])
    }
}
