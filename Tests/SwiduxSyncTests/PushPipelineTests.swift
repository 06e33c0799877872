import Foundation
import GRDB
import SwiduxSQLite
@testable import SwiduxSync
import SwiduxSyncWire
import Testing
import SwiduxTesting

/// The push pipeline (issue 31): the next request is built while one is in flight, without
/// its rows, and without looking up versions a first push cannot have.
@Suite("Push pipeline")
struct PushPipelineTests {
    /// A folder and 60 notes, never synced.
    static func fixture(mutationBytes: Int = 400) throws -> Fixture {
        try Fixture(mutationBytes: mutationBytes, before: { database in
            try database.writer.write { db in
                try db.execute(sql: "INSERT INTO folder (id, position, name) VALUES ('f', 0, 'F')")
                for index in 0..<60 {
                    try db.execute(sql: "INSERT INTO note (id, position, folderId, text) VALUES (?, ?, 'f', ?)",
                                   arguments: [String(format: "n%02d", index), index, "text \(index) " + String(repeating: "x", count: 40)])
                }
            }
        })
    }

    static func keys(_ mutations: [PendingMutation]) throws -> Set<RowKey> {
        Set(try mutations.flatMap { try $0.changedKeys() })
    }

    /// The server's answer applying every change of `mutations`, versions from `version` on.
    static func answer(_ mutations: [PendingMutation], from version: inout Int64) throws -> PushResponse {
        var results: [SyncResult] = []
        for mutation in mutations {
            for change in try mutation.decoded().changes {
                results.append(SyncResult(table: change.table, id: change.id, applied: true, current: SyncRow(
                    table: change.table, id: change.id, version: version, deleted: change.kind == .delete, columns: change.columns)))
                version += 1
            }
        }
        return PushResponse(lastMutationID: mutations.last?.id ?? 0, results: results, acknowledged: mutations.map(\.id))
    }

    @Test("A request built while another is in flight has none of its rows; a row changed after it was sent goes later, with the version it got")
    func nextRequestLeavesRowsInFlight() async throws {
        let fixture = try Self.fixture()
        let engine = fixture.engine
        let unversioned = try engine.unversionedMark()
        #expect(unversioned == 61)
        let first = try engine.preparePush(requestBytes: 2000, unversionedThrough: unversioned)
        let inFlight = try Self.keys(first)
        #expect(!first.isEmpty && inFlight.count < 61)
        // A row of the request in flight changes meanwhile.
        let changed = try #require(try first[0].decoded().changes.last)
        try await fixture.database.writer.write { db in
            try db.execute(sql: "UPDATE note SET text = 'changed in flight' WHERE id = ?", arguments: [changed.id.databaseValue])
        }
        let second = try engine.preparePush(requestBytes: 2000, after: first.map(\.id).max()!, inFlight: inFlight,
                                            unversionedThrough: unversioned)
        #expect(!second.isEmpty)
        #expect(try Self.keys(second).isDisjoint(with: inFlight))
        #expect(second.map(\.id).min()! > first.map(\.id).max()!)
        // Acknowledged in order, then everything else.
        var version: Int64 = 100
        let changedVersion = 100 + Int64(try #require(try first.flatMap { try $0.decoded().changes }.firstIndex { $0.id == changed.id }))
        _ = try engine.acknowledge(try Self.answer(first, from: &version), sent: first)
        _ = try engine.acknowledge(try Self.answer(second, from: &version), sent: second)
        var pushed = try first.flatMap { try $0.decoded().changes } + second.flatMap { try $0.decoded().changes }
        var last = second.map(\.id).max()!
        while true {
            let next = try engine.preparePush(requestBytes: 2000, after: last, unversionedThrough: unversioned)
            if next.isEmpty { break }
            pushed += try next.flatMap { try $0.decoded().changes }
            last = next.map(\.id).max()!
            _ = try engine.acknowledge(try Self.answer(next, from: &version), sent: next)
        }
        // Every row once, the changed one twice: last as an update on the version it got.
        #expect(pushed.count == 62)
        #expect(Set(pushed.map(\.id.key)).count == 61)
        let again = try #require(pushed.last { $0.id == changed.id })
        #expect(again.kind == .update)
        #expect(again.columns?["text"] == .text("changed in flight"))
        #expect(again.baseVersion == changedVersion)
        #expect(pushed.filter { $0.id != changed.id }.allSatisfy { $0.baseVersion == nil && $0.kind == .insert })
        #expect(try fixture.outbox().isEmpty)
        #expect(try engine.pendingCount() == 0)
    }

    @Test("Randomized: requests cut small and built while others are in flight, rows changed between every step, acknowledgements deleting the entries they cover — the server ends with every local row, nothing left queued")
    func pipelineModel() async throws {
        let rounds = Int(ProcessInfo.processInfo.environment["SWIDUX_PUSH_MODEL_ROUNDS"] ?? "") ?? 8
        for round in 0..<rounds {
            let seed = UInt64(round) &* 0x9E37_79B9 &+ 17
            var random = SeededRandomNumberGenerator(seed: seed)
            // Mutations of one change (1 byte) to several: a mutation closes right after a row in flight.
            let fixture = try Self.fixture(mutationBytes: [1, 200, 1, 1000][round % 4])
            // Few ids in some rounds: rows in flight change again often.
            let ids = round % 3 == 0 ? 80 : 16
            let engine = fixture.engine
            var server: [String: [String: SyncValue]] = [:]   // "table id" → columns
            var version: Int64 = 1
            func applied(_ mutations: [PendingMutation]) throws -> PushResponse {
                for change in try mutations.flatMap({ try $0.decoded().changes }) {
                    guard case .text(let id) = change.id else { continue }
                    server["\(change.table) \(id)"] = change.kind == .delete ? nil : change.columns
                }
                return try Self.answer(mutations, from: &version)
            }
            // A local change of a random note: new, edited, deleted, or deleted and made again.
            func change() async throws {
                let id = String(format: "n%02d", Int.random(in: 0..<ids, using: &random))
                let text = "t\(random.next() % 1000) " + String(repeating: "y", count: Int.random(in: 0..<60, using: &random))
                let kind = Int.random(in: 0..<4, using: &random)
                try await fixture.database.writer.write { db in
                    switch kind {
                    case 0:
                        try db.execute(sql: "DELETE FROM note WHERE id = ?", arguments: [id])
                    case 1:
                        try db.execute(sql: "DELETE FROM note WHERE id = ?", arguments: [id])
                        try db.execute(sql: "INSERT INTO note (id, position, folderId, text) VALUES (?, 0, 'f', ?)", arguments: [id, text])
                    default:
                        try db.execute(sql: "INSERT INTO note (id, position, folderId, text) VALUES (?, 0, 'f', ?) ON CONFLICT(id) DO UPDATE SET text = excluded.text",
                                       arguments: [id, text])
                    }
                }
            }
            func localRows() async throws -> [String: [String: SyncValue]] {
                try await fixture.database.writer.read { db in
                    var rows: [String: [String: SyncValue]] = [:]
                    for table in ["folder", "note"] {
                        for row in try Row.fetchAll(db, sql: "SELECT * FROM \(table)") {
                            var columns: [String: SyncValue] = [:]
                            for (name, value) in row where name != "id" { columns[name] = SyncValue(value) }
                            rows["\(table) \(row["id"] as String)"] = columns
                        }
                    }
                    return rows
                }
            }
            // No change lost at any step: a row the server does not hold as the file does is
            // queued, or goes in a mutation built and not acknowledged yet with what the file holds.
            func checkNothingLost(_ unacknowledged: [PendingMutation]) async throws {
                let local = try await localRows()
                let queued = Set(try fixture.outbox().map { $0.split(separator: " ").prefix(2).joined(separator: " ") })
                var sending: [String: [String: SyncValue]?] = [:]
                for change in try unacknowledged.flatMap({ try $0.decoded().changes }) {
                    guard case .text(let id) = change.id else { continue }
                    sending["\(change.table) \(id)"] = change.kind == .delete ? .some(nil) : .some(change.columns)
                }
                for key in Set(server.keys).union(local.keys) where server[key] != local[key] {
                    let sent = sending[key].map { $0 == local[key] } ?? false
                    #expect(queued.contains(key) || sent, "seed \(seed), step \(steps): \(key) differs from the server, and is neither queued nor being sent")
                }
            }
            // The client's loop (SyncClient.push): one request in flight, the next built meanwhile.
            let unversioned = try engine.unversionedMark()
            let bytes = Int.random(in: 600...3000, using: &random)
            var steps = 0
            var inFlight = try engine.preparePush(requestBytes: bytes, unversionedThrough: unversioned)
            while steps < 500 {
                steps += 1
                // Rows change during the first 40 steps, then the push drains.
                let changing = steps <= 40
                if changing { for _ in 0..<Int.random(in: 0...5, using: &random) { try await change() } }
                if inFlight.isEmpty {
                    if !changing { break }
                    inFlight = try engine.preparePush(requestBytes: bytes, unversionedThrough: 0)
                    continue
                }
                var next = try engine.preparePush(requestBytes: bytes, after: inFlight.map(\.id).max()!, inFlight: try Self.keys(inFlight),
                                                  unversionedThrough: steps < 20 ? unversioned : 0, scanAfter: SyncEngine.scanAfter(inFlight))
                if changing { for _ in 0..<Int.random(in: 0...3, using: &random) { try await change() } }
                _ = try engine.acknowledge(try applied(inFlight), sent: inFlight)
                if next.isEmpty { next = try engine.preparePush(requestBytes: bytes, unversionedThrough: 0) }
                inFlight = next
                try await checkNothingLost(inFlight)
            }
            #expect(inFlight.isEmpty, "seed \(seed): still pushing after \(steps) requests")
            let local = try await localRows()
            let differing = Set(server.keys).union(local.keys).filter { server[$0] != local[$0] }.sorted()
            #expect(differing.isEmpty, "seed \(seed): server and file differ on \(differing)")
            #expect(try fixture.outbox().isEmpty, "seed \(seed)")
            #expect(try engine.pendingCount() == 0, "seed \(seed)")
        }
    }

    @Test("A row in flight changed again between two rows of the next request keeps its entry: no mutation's range covers it")
    func rowInFlightBetweenMutations() async throws {
        let fixture = try Self.fixture(mutationBytes: 1)   // one change per mutation
        let engine = fixture.engine
        var version: Int64 = 1
        let all = try engine.preparePush()
        _ = try engine.acknowledge(try Self.answer(all, from: &version), sent: all)
        #expect(try fixture.outbox().isEmpty)
        func update(_ id: String) async throws {
            try await fixture.database.writer.write { db in
                try db.execute(sql: "UPDATE note SET text = text || '+' WHERE id = ?", arguments: [id])
            }
        }
        try await update("n10")
        let first = try engine.preparePush()
        #expect(try Self.keys(first).count == 1)
        // n10 is in flight; n20, n10 again and n30 change, in that order.
        try await update("n20")
        try await update("n10")
        try await update("n30")
        let second = try engine.preparePush(after: first.map(\.id).max()!, inFlight: try Self.keys(first),
                                            scanAfter: SyncEngine.scanAfter(first))
        #expect(try second.flatMap { try $0.changedKeys() }.map { $0.id.description } == ["\"n20\"", "\"n30\""])
        _ = try engine.acknowledge(try Self.answer(first, from: &version), sent: first)
        _ = try engine.acknowledge(try Self.answer(second, from: &version), sent: second)
        // n10's second change is still queued, and goes next.
        #expect(try fixture.outbox() == ["note n10 U"])
        let third = try engine.preparePush()
        #expect(try third.flatMap { try $0.decoded().changes }.map(\.id) == [.text("n10")])
    }

    @Test("When every queued row is in flight, nothing is built and no outbox entry is dropped")
    func everythingInFlight() async throws {
        let fixture = try Self.fixture()
        let all = try fixture.engine.preparePush()
        #expect(try Self.keys(all).count == 61)
        let next = try fixture.engine.preparePush(after: all.map(\.id).max()!, inFlight: try Self.keys(all))
        #expect(next.isEmpty)
        #expect(try fixture.outbox().count == 61)
        // Acknowledged, they leave the outbox.
        var version: Int64 = 1
        _ = try fixture.engine.acknowledge(try Self.answer(all, from: &version), sent: all)
        #expect(try fixture.outbox().isEmpty)
    }

    @Test("Stored mutations after the ones in flight are loaded before anything is built")
    func storedAfterInFlight() async throws {
        let fixture = try Self.fixture()
        let first = try fixture.engine.preparePush(requestBytes: 2000)
        let second = try fixture.engine.preparePush(requestBytes: 2000, after: first.map(\.id).max()!, inFlight: try Self.keys(first))
        // A new push session (say, after a restart) resends both, in order; one after the first loads the second.
        #expect(try fixture.engine.preparePush().map(\.id) == (first + second).map(\.id))
        #expect(try fixture.engine.preparePush(after: first.map(\.id).max()!).map(\.id) == second.map(\.id))
    }

    @Test("A request holds at most requestRows rows, however small they are; the rest go in the next ones, each row once")
    func requestRows() async throws {
        let fixture = try Self.fixture(mutationBytes: 1 << 20)
        let engine = fixture.engine
        let unversioned = try engine.unversionedMark()
        var pushed: [String] = []
        var last: Int64 = 0
        var version: Int64 = 1
        while true {
            let next = try engine.preparePush(requestRows: 25, after: last, unversionedThrough: unversioned)
            if next.isEmpty { break }
            let changes = try next.flatMap { try $0.decoded().changes }
            #expect(changes.count <= 25)
            pushed += changes.map(\.id.key)
            last = next.map(\.id).max()!
            _ = try engine.acknowledge(try Self.answer(next, from: &version), sent: next)
        }
        // 61 rows: 25, 25, 11.
        #expect(pushed.count == 61)
        #expect(Set(pushed).count == 61)
        #expect(try fixture.outbox().isEmpty)
        #expect(PushStateMachine(unversionedThrough: 0).requestRows == 16_384)
    }

    @Test("No version is assumed missing once one is recorded or a mutation is stored")
    func unversionedMark() async throws {
        let fixture = try Self.fixture()
        #expect(try fixture.engine.unversionedMark() == 61)
        let stored = try fixture.engine.preparePush(requestBytes: 2000)
        #expect(try fixture.engine.unversionedMark() == 0)
        var version: Int64 = 1
        _ = try fixture.engine.acknowledge(try Self.answer(stored, from: &version), sent: stored)
        #expect(try fixture.engine.pendingCount() > 0)
        #expect(try fixture.engine.unversionedMark() == 0)
    }

    @Test("A sync engine's writer keeps statement journals in memory and at least 32 MiB of pages")
    func writerPragmas() async throws {
        let fixture = try Self.fixture()
        try await fixture.database.writer.write { db in
            #expect(try Int.fetchOne(db, sql: "PRAGMA temp_store") == 2)
            let cache = try #require(try Int.fetchOne(db, sql: "PRAGMA cache_size"))
            #expect(cache <= -32 * 1024)
        }
    }
}
