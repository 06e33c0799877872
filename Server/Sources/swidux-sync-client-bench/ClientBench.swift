import Foundation
import PostgresTestSupport
import Swidux
import SwiduxSQLite
import SwiduxSync

/// Client-side sync figures, on a throwaway cluster and a `swidux-sync-server`
/// child process started here (build it first: `swift build -c release --package-path Server`):
///
/// 1. End-to-end latency on loopback: client A's flush → the row visible in client B's
///    store (B's store follows its database; both clients sync continuously). p50/p95 over
///    `SWIDUX_BENCH_CHANGES` (default 200) changes made one after the other.
/// 2. First sync of `SWIDUX_BENCH_ROWS` (default 100,000) rows into an empty client: rows/s,
///    and its time ÷ a local hydration of the same rows from that client's file.
///
///     swift run -c release --package-path Server swidux-sync-client-bench
@main
struct ClientBench {
    struct Mark: Codable, Identifiable, Equatable, Sendable {
        var id: Int
        var title: String
    }

    struct MarksState: Sendable { var marks = EntityStore<Mark>() }
    struct NoAction: Sendable {}
    struct NoReducer: SwiduxReducer {
        func reduce(state: inout MarksState, action: NoAction, environment: Void) -> Effect<NoAction>? { nil }
    }

    static let table = EntityTable<Mark>(named: "mark")
    static let migrations = SwiduxMigrations { m in m.register("v1") { db in try db.createEntityTable(table) } }

    static func main() async throws {
        let environment = ProcessInfo.processInfo.environment
        let changes = Int(environment["SWIDUX_BENCH_CHANGES"] ?? "") ?? 200
        let rows = Int(environment["SWIDUX_BENCH_ROWS"] ?? "") ?? 100_000
        let cluster = try await PostgresCluster.start()
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("swidux-client-bench-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        do {
            try await latency(cluster: cluster, directory: directory, changes: changes)
            try await firstSync(cluster: cluster, directory: directory, rows: rows)
            await cluster.stop()
        } catch {
            await cluster.stop()
            throw error
        }
    }

    static func server(_ cluster: PostgresCluster, space: String) async throws -> (ServerProcess, String) {
        let postgres = try await cluster.createDatabase()
        let token = try await ServerProcess.createToken(postgres: postgres, space: space)
        return (try await ServerProcess.start(postgres: postgres), token)
    }

    @MainActor
    static func latency(cluster: PostgresCluster, directory: URL, changes: Int) async throws {
        let (server, token) = try await server(cluster, space: "latency")
        let a = try SwiduxDatabase(path: directory.appendingPathComponent("a.sqlite").path, migrations: migrations)
        let b = try SwiduxDatabase(path: directory.appendingPathComponent("b.sqlite").path, migrations: migrations)
        let clientA = try SyncClient(database: a, server: server.url, token: token, tables: [.table(table)])
        let clientB = try SyncClient(database: b, server: server.url, token: token, tables: [.table(table)])
        var state = MarksState()
        let persistence = try b.persistence(hydrating: &state, [.entities(\.marks, in: table)])
        let store = Store(initialState: state, reducer: NoReducer(), environment: (), persistence: persistence)
        try store.follow(b, every: .milliseconds(5))
        await clientA.start()
        await clientB.start()
        // Warm-up: connections open, long polls waiting.
        try await a.performAtomically([{ db in try table.write(WriteBatch(writes: [Mark(id: -1, title: "warm-up")]), in: db) }])
        while store.state.marks[-1] == nil { try await Task.sleep(for: .milliseconds(1)) }

        var samples: [Double] = []
        let clock = ContinuousClock()
        for index in 0..<changes {
            let mark = Mark(id: index, title: "change \(index)")
            try await a.performAtomically([{ db in try table.write(WriteBatch(writes: [mark]), in: db) }])
            let flushed = clock.now
            let deadline = flushed + .seconds(10)
            while store.state.marks[index] == nil, clock.now < deadline { try await Task.sleep(for: .milliseconds(1)) }
            guard store.state.marks[index] != nil else { throw ProcessFailure("change \(index) did not reach B within 10 s") }
            samples.append(Double((clock.now - flushed) / .microseconds(1)) / 1000)
        }
        await clientA.stop()
        await clientB.stop()
        await server.stop()
        samples.sort()
        func percentile(_ p: Double) -> Double { samples[min(samples.count - 1, Int(Double(samples.count) * p))] }
        print(String(format: "latency, A's flush → visible in B's store (%d changes, loopback): p50 %.1f ms, p95 %.1f ms, max %.1f ms (target p95 ≤ 300 ms)",
                     samples.count, percentile(0.5), percentile(0.95), samples.last ?? 0))
    }

    static func firstSync(cluster: PostgresCluster, directory: URL, rows: Int) async throws {
        let (server, token) = try await server(cluster, space: "bulk")
        let source = try SwiduxDatabase(path: directory.appendingPathComponent("source.sqlite").path, migrations: migrations)
        let marks = (0..<rows).map { Mark(id: $0, title: "row \($0) " + String(repeating: "x", count: 40)) }
        try await source.performAtomically([{ db in try table.write(WriteBatch(writes: marks), in: db) }])
        let clock = ContinuousClock()
        let pushStart = clock.now
        let pushed = try await SyncClient(database: source, server: server.url, token: token, tables: [.table(table)]).sync()
        let pushTime = clock.now - pushStart

        let target = try SwiduxDatabase(path: directory.appendingPathComponent("target.sqlite").path, migrations: migrations)
        let client = try SyncClient(database: target, server: server.url, token: token, tables: [.table(table)], pageSize: 10_000)
        let start = clock.now
        let report = try await client.sync()
        let syncTime = clock.now - start
        guard report.pulled == rows else { throw ProcessFailure("pulled \(report.pulled) rows, expected \(rows)") }
        var hydrations: [Duration] = []
        for _ in 0..<3 {
            let begin = clock.now
            let store = try await target.hydrate(table)
            hydrations.append(clock.now - begin)
            guard store.count == rows else { throw ProcessFailure("hydrated \(store.count) rows") }
        }
        await server.stop()
        let hydration = hydrations.sorted()[1]
        func seconds(_ duration: Duration) -> Double { Double(duration / .microseconds(1)) / 1_000_000 }
        print(String(format: "first push of %d rows (existing file, never synced): %.2f s, %.0f rows/s",
                     pushed.pushed, seconds(pushTime), Double(pushed.pushed) / seconds(pushTime)))
        print(String(format: "first sync of %d rows into an empty client: %.2f s, %.0f rows/s; local hydration of the same rows %.3f s; sync ÷ hydration %.1f×",
                     rows, seconds(syncTime), Double(rows) / seconds(syncTime), seconds(hydration), seconds(syncTime) / seconds(hydration)))
    }
}
