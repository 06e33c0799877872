import Foundation
import GRDB
import SwiduxSQLite
@testable import SwiduxSync
import SwiduxSyncWire
import SwiduxTestSupport
import Testing

/// A client killed during a flush (SIGKILL, the `swidux-crash-writer` child writing flushes
/// of tables "a" and "b" forever): on restart, the outbox and the file agree.
@Suite("Client killed during a flush")
struct CrashTests {
    struct CrashRow: Codable, Identifiable, Equatable, Sendable {
        var id: Int
        var flush: Int
        var payload: String
    }

    static let tableA = EntityTable<CrashRow>(named: "a")
    static let tableB = EntityTable<CrashRow>(named: "b")
    /// The crash writer's schema, identically.
    static let migrations = SwiduxMigrations { m in
        m.register("v1") { db in
            try db.createEntityTable(tableA)
            try db.createEntityTable(tableB)
        }
    }
    static let tables: [SyncTable] = [.table(tableA), .table(tableB)]

    static var rounds: Int { ProcessInfo.processInfo.environment["SWIDUX_SYNC_CRASH_ROUNDS"].flatMap(Int.init) ?? 3 }

    static func crashWriterPath() throws -> String {
        if let forced = ProcessInfo.processInfo.environment["SWIDUX_CRASH_WRITER"] { return forced }
        var candidates: [URL] = []
        if let exe = try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe") {
            candidates.append(URL(fileURLWithPath: exe))
        }
        candidates.append(URL(fileURLWithPath: CommandLine.arguments[0]))
        for candidate in candidates {
            var directory = candidate.deletingLastPathComponent()
            for _ in 0..<4 {
                let path = directory.appendingPathComponent("swidux-crash-writer").path
                if FileManager.default.isExecutableFile(atPath: path) { return path }
                directory = directory.deletingLastPathComponent()
            }
        }
        throw SyncSetupError(message: "swidux-crash-writer not found next to \(candidates.map(\.path)); run `swift build` first or set SWIDUX_CRASH_WRITER")
    }

    static func reportedFlush(_ path: String) -> Int {
        guard let data = FileManager.default.contents(atPath: path) else { return 0 }
        let text = String(decoding: data, as: UTF8.self)
        let lines = text.split(separator: "\n")
        return (text.hasSuffix("\n") ? lines : lines.dropLast()).last.flatMap { Int($0) } ?? 0
    }

    /// Runs the writer until it reported a flush, lets it write a random while, kills it.
    static func runAndKill(_ writer: String, database: String, progress: String, pause: Int) async throws {
        try? FileManager.default.removeItem(atPath: progress)
        let process = try await ChildProcess.start([writer, database, progress], output: "/dev/null")
        let deadline = ContinuousClock.now + .seconds(30)
        while reportedFlush(progress) == 0, !process.hasEnded, ContinuousClock.now < deadline {
            try await Task.sleep(for: .milliseconds(5))
        }
        #expect(!process.hasEnded, "the writer exited early")
        try await Task.sleep(for: .milliseconds(pause))
        process.send(SIGKILL)
        #expect(try await process.wait() == 128 + SIGKILL)
    }

    /// Every row of both tables: "a 3" → its stored JSON.
    static func rows(_ db: Database) throws -> [String: String] {
        var rows: [String: String] = [:]
        for table in ["a", "b"] {
            for row in try Row.fetchAll(db, sql: "SELECT id, data FROM \(table)") {
                rows["\(table) \(row[0] as Int64)"] = row[1]
            }
        }
        return rows
    }

    @Test("After a SIGKILL during flushes, every row changed since the last push has an outbox entry, and no entry lacks its commit")
    func outboxAndFileAgree() async throws {
        let writer = try Self.crashWriterPath()
        let directory = try TemporaryDirectory()
        let path = directory.path("client.sqlite")
        let progress = directory.path("progress.txt")
        do {
            let database = try SwiduxDatabase(path: path, migrations: Self.migrations)
            _ = try SyncEngine(writer: database.writer, tables: Self.tables)
            try database.close()
        }
        var generator = SystemRandomNumberGenerator()
        for round in 1...Self.rounds {
            try await Self.runAndKill(writer, database: path, progress: progress, pause: Int.random(in: 0...100, using: &generator))
            // The last push: everything so far acknowledged.
            let database = try SwiduxDatabase(path: path, migrations: Self.migrations)
            let engine = try SyncEngine(writer: database.writer, tables: Self.tables)
            let pending = try engine.preparePush()
            let results = try pending.flatMap { try $0.decoded().changes }.map {
                SyncResult(table: $0.table, id: $0.id, applied: true, current: SyncRow(table: $0.table, id: $0.id, version: 1, deleted: $0.kind == .delete, columns: $0.columns))
            }
            _ = try engine.acknowledge(PushResponse(lastMutationID: pending.last?.id ?? 0, results: results), sent: pending)
            #expect(try engine.pendingCount() == 0)
            let acknowledged = try await database.writer.read { db in try Self.rows(db) }
            try database.close()

            try await Self.runAndKill(writer, database: path, progress: progress, pause: Int.random(in: 0...150, using: &generator))
            let reopened = try SwiduxDatabase(path: path, migrations: Self.migrations)
            let (now, operations) = try await reopened.writer.read { db in
                var operations: [String: [String]] = [:]
                for row in try Row.fetchAll(db, sql: "SELECT tbl, rid, op FROM swidux_sync_outbox ORDER BY seq") {
                    operations["\(row[0] as String) \(row[1] as Int64)", default: []].append(row[2])
                }
                return (try Self.rows(db), operations)
            }
            let outbox = Set(operations.keys)
            let changed = Set(Set(now.keys).union(acknowledged.keys).filter { now[$0] != acknowledged[$0] })
            #expect(!changed.isEmpty, "round \(round): the writer changed nothing")
            #expect(changed.subtracting(outbox).isEmpty, "round \(round): changed rows without an outbox entry: \(changed.subtracting(outbox).sorted().prefix(5))")
            // An entry without a visible change: only a row created and deleted again since the push.
            let unexplained = outbox.subtracting(changed).filter { key in
                !(now[key] == nil && acknowledged[key] == nil && operations[key]!.contains("I") && operations[key]!.last == "D")
            }
            #expect(unexplained.isEmpty, "round \(round): outbox entries without a committed change: \(unexplained.sorted().prefix(5))")
            // And each entry's last operation matches the file: a present row's is not a deletion.
            let mismatched = outbox.filter { (now[$0] != nil) == (operations[$0]!.last == "D") }
            #expect(mismatched.isEmpty, "round \(round): outbox disagrees with the file for \(mismatched.sorted().prefix(5))")
            try reopened.close()
        }
    }
}
