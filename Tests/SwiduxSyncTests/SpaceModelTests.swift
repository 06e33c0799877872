import Foundation
import GRDB
import SwiduxSQLite
@testable import SwiduxSync
import SwiduxSyncWire
import Testing

/// Random edits and moves of rows between the token's own space and two shared ones, random
/// pushes (some held in flight while the rows change again) acknowledged by a model server
/// that keeps one dictionary of rows per space: once every engine has pushed everything,
/// each space's model holds exactly the local rows naming that space.
@Suite("Rows moving between spaces, against a model server")
struct SpaceModelTests {
    /// A deterministic generator (SplitMix64): a failing seed fails again.
    struct Generator: RandomNumberGenerator {
        var state: UInt64
        mutating func next() -> UInt64 {
            state &+= 0x9E37_79B9_7F4A_7C15
            var z = state
            z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
            z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
            return z ^ (z >> 31)
        }
    }

    /// One dictionary of rows (id → columns) per space; applies changes as the server does:
    /// an insert writes the row, an update merges its columns into a live row (writes them
    /// when there is none), a deletion removes it.
    struct ModelServer {
        var rows: [String: [String: [String: SyncValue]]] = [:]
        /// Per space, each row's last change, as a pull reads it.
        var log: [String: [String: SyncRow]] = [:]
        var version: Int64 = 0

        /// Every change of `space` past `cursor`, in version order.
        func page(_ space: String, after cursor: Int64) -> PullResponse {
            let rows = log[space, default: [:]].values.filter { $0.version > cursor }.sorted { $0.version < $1.version }
            return PullResponse(rows: rows, cursor: max(cursor, version), hasMore: false)
        }

        mutating func answer(_ pending: [PendingMutation], space: String) throws -> PushResponse {
            var results: [SyncResult] = []
            for mutation in pending {
                for change in try mutation.decoded().changes {
                    guard case .text(let id) = change.id else { throw SyncSetupError(message: "a text id") }
                    version += 1
                    switch change.kind {
                    case .insert: rows[space, default: [:]][id] = change.columns ?? [:]
                    case .update: rows[space, default: [:]][id, default: [:]].merge(change.columns ?? [:]) { $1 }
                    case .delete: rows[space, default: [:]][id] = nil
                    }
                    let stored = rows[space]?[id]
                    log[space, default: [:]][id] = SyncRow(table: change.table, id: change.id, version: version, deleted: stored == nil, columns: stored)
                    // Applied as sent: the answer carries the version only, as the server's does.
                    results.append(SyncResult(table: change.table, id: change.id, applied: true, current: SyncRow(
                        table: change.table, id: change.id, version: version, deleted: rows[space]?[id] == nil)))
                }
            }
            return PushResponse(lastMutationID: pending.last?.id ?? 0, results: results)
        }
    }

    static let spaces: [String?] = [nil, "S", "T"]

    @Test("After every engine pushed, each space's model holds exactly the local rows naming it", arguments: 0..<24)
    func modelMatches(seed: UInt64) throws {
        var random = Generator(state: seed)
        let fixture = try SpaceFixture()
        let tables = [SyncTable(name: "folder", spaceColumn: "space")]
        let engines = try Self.spaces.map { try fixture.engine($0, tables: tables) }
        if seed % 2 == 1 {
            // A server that merges by column: updates of rows it has carry only their changed columns.
            for engine in engines { try engine.writer.write { db in try engine.schema.setValue("merges", 1, db) } }
        }
        var server = ModelServer()
        var held: [[PendingMutation]] = Array(repeating: [], count: engines.count)
        // Another device of the same user, which only pulls, each space at its own pace.
        let follower = try SpaceFixture()
        let following = try Self.spaces.map { try follower.engine($0, tables: tables) }
        func pull(_ index: Int) throws {
            _ = try following[index].apply(server.page(Self.name(of: Self.spaces[index]), after: following[index].cursor()))
        }
        var ids: [String] = []
        func push(_ index: Int, hold: Bool) throws {
            if held[index].isEmpty {
                held[index] = try engines[index].preparePush()
                if hold { return }
            }
            guard !held[index].isEmpty else { return }
            let response = try server.answer(held[index], space: Self.name(of: Self.spaces[index]))
            _ = try engines[index].acknowledge(response, sent: held[index])
            held[index] = []
        }
        for step in 0..<300 {
            let space = Self.spaces.randomElement(using: &random)!
            switch Int.random(in: 0..<10, using: &random) {
            case 0, 1:
                let id = "r\(step)"
                ids.append(id)
                try fixture.addFolder(id, "n\(step)", space: space)
            case 2, 3:
                guard let id = ids.randomElement(using: &random) else { continue }
                try fixture.execute("UPDATE folder SET space = ? WHERE id = ?", [space, id])
            case 4:
                guard let id = ids.randomElement(using: &random) else { continue }
                try fixture.execute("UPDATE folder SET name = ? WHERE id = ?", ["e\(step)", id])
            case 5:
                guard let id = ids.randomElement(using: &random) else { continue }
                try fixture.execute("DELETE FROM folder WHERE id = ?", [id])
            case 6:
                try pull(Int.random(in: 0..<following.count, using: &random))
            default:
                try push(Int.random(in: 0..<engines.count, using: &random), hold: Bool.random(using: &random))
            }
        }
        // Drain: every engine pushes until none has anything left.
        for _ in 0..<10 {
            for index in engines.indices { try push(index, hold: false) }
            if try engines.allSatisfy({ try $0.pendingCount() == 0 }) { break }
        }
        for (index, engine) in engines.enumerated() {
            #expect(try engine.pendingCount() == 0, "space \(Self.name(of: Self.spaces[index]))")
        }
        let local = try fixture.database.writer.read { db in try Row.fetchAll(db, sql: "SELECT id, name, position, space FROM folder") }
        var expected: [String: [String: [String: SyncValue]]] = [:]
        for row in local {
            let space: String? = row["space"]
            expected[Self.name(of: space), default: [:]][row["id"]] = [
                "name": .text(row["name"]), "position": .integer(row["position"]), "space": space.map { .text($0) } ?? .null,
            ]
        }
        // The follower pulls every space, in any order: it ends with the same rows, once each,
        // and nothing to push.
        for index in following.indices.shuffled(using: &random) { try pull(index) }
        let read = { (database: SwiduxDatabase) in
            try database.writer.read { db in try Row.fetchAll(db, sql: "SELECT id, name, position, space FROM folder ORDER BY id") }
        }
        let (followed, written) = (try read(follower.database), try read(fixture.database))
        #expect(followed == written, "only on the follower: \(followed.filter { !written.contains($0) }), missing there: \(written.filter { !followed.contains($0) })")
        for (index, engine) in following.enumerated() {
            #expect(try engine.pendingCount() == 0, "follower, space \(Self.name(of: Self.spaces[index]))")
        }
        for space in Self.spaces.map(Self.name(of:)) {
            let held = server.rows[space, default: [:]], wanted = expected[space, default: [:]]
            // Only the rows that differ, for a readable failure.
            let differing = Set(held.keys).union(wanted.keys).filter { held[$0] != wanted[$0] }.sorted()
            #expect(differing.isEmpty, "space \(space): \(differing.map { "\($0) server \(String(describing: held[$0])), local \(String(describing: wanted[$0]))" })")
        }
    }

    static func name(of space: String?) -> String { space ?? "personal" }
}
