import Foundation
import Logging
import PostgresNIO
import PostgresTestSupport
import SwiduxSyncServer
import SwiduxSyncWire
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Server apply throughput: 10,000 upserts pushed through HTTP in one push,
/// against raw postgres-nio inserts of the same rows in one transaction, on a throwaway
/// cluster started here. The variants run in a rotating order each round; each figure is the
/// median of its rounds (round 0 warms up and is not counted).
///
///     swift run -c release --package-path Server swidux-sync-bench
///
/// `SWIDUX_BENCH_ROWS` (default 10000) and `SWIDUX_BENCH_ROUNDS` (default 5) change the size.
///
/// Then the sync-at-scale figures (``ScaleBench``): `SWIDUX_BENCH_SCALE_ROWS`
/// (default 100000), `SWIDUX_BENCH_PUSH_ROWS` (default 10000), `SWIDUX_BENCH_SCALE_ROUNDS`
/// (default 3). `SWIDUX_BENCH_PART=apply` or `scale` runs only one of the two.
@main
struct SyncBench {
    /// Any failure (a server executable not built, a cluster that cannot start) is one line
    /// on standard error and exit status 1, not a crash with a backtrace.
    static func main() async {
        do {
            try await runParts()
        } catch {
            FileHandle.standardError.write(Data("swidux-sync-bench: \(error)\n".utf8))
            exit(1)
        }
    }

    static func runParts() async throws {
        let environment = ProcessInfo.processInfo.environment
        let count = Int(environment["SWIDUX_BENCH_ROWS"] ?? "") ?? 10_000
        let rounds = Int(environment["SWIDUX_BENCH_ROUNDS"] ?? "") ?? 5
        var logger = Logger(label: "swidux-sync-bench")
        logger.logLevel = .critical   // stopping the in-process server at the end logs harmless errors

        let part = environment["SWIDUX_BENCH_PART"] ?? "all"
        let scaleRows = Int(environment["SWIDUX_BENCH_SCALE_ROWS"] ?? "") ?? 100_000
        let pushRows = Int(environment["SWIDUX_BENCH_PUSH_ROWS"] ?? "") ?? 10_000
        let scaleRounds = Int(environment["SWIDUX_BENCH_SCALE_ROUNDS"] ?? "") ?? 3

        // The scale part runs the built server: say so before anything else takes minutes.
        if part != "apply" { _ = try ServerProcess.executable() }
        let cluster = try await PostgresCluster.start()
        do {
            if part != "scale" { try await run(cluster: cluster, count: count, rounds: rounds, logger: logger) }
            if part != "apply" {
                try await ScaleBench.run(cluster: cluster, rows: scaleRows, pushRows: pushRows, rounds: scaleRounds, logger: logger)
            }
            await cluster.stop()
        } catch {
            await cluster.stop()
            throw error
        }
    }

    static func run(cluster: PostgresCluster, count: Int, rounds: Int, logger: Logger) async throws {
        let url = try PostgresURL(try await cluster.createDatabase())
        let client = PostgresClient(configuration: url.clientConfiguration, backgroundLogger: logger)
        let (port, serverTask) = try await SyncServer(postgres: url, port: 0, logger: logger).start()
        defer { serverTask.cancel() }
        let base = URL(string: "http://127.0.0.1:\(port)")!

        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask { await client.run() }
            defer { group.cancelAll() }
            let token = try await Tokens.create(space: "bench", client: client, logger: logger)
            let session = URLSession(configuration: .ephemeral)
            _ = try await send(session, base, "PUT", SyncProtocol.tablesPath, token,
                               try JSONEncoder().encode(TablesRequest(tables: ["todo"])), expect: 204)
            // The baseline's table: the same shape as the server's rows table.
            try await client.query("""
                CREATE TABLE raw_rows (space bigint NOT NULL, tbl text NOT NULL, rid text NOT NULL, id json NOT NULL,
                    version bigint NOT NULL, deleted boolean NOT NULL, columns json, PRIMARY KEY (space, tbl, rid))
                """, logger: logger)
            try await client.query("CREATE INDEX raw_rows_space_version ON raw_rows (space, version)", logger: logger)
            try await client.query("CREATE SEQUENCE raw_version", logger: logger)

            var pushed: [Duration] = [], raw: [Duration] = [], bulk: [Duration] = []
            let clock = ContinuousClock()
            for round in 0...rounds {   // round 0 warms up and is not counted
                let changes = (0..<count).map { index in
                    SyncChange(table: "todo", id: .text("r\(round)-\(index)"), kind: .update, columns: [
                        "title": .text("Todo number \(index) of round \(round)"), "done": .integer(Int64(index % 2)),
                        "position": .integer(Int64(index)), "list": .text("inbox"),
                    ])
                }
                let body = try JSONEncoder().encode(PushRequest(clientID: "bench", mutations: [SyncMutation(id: Int64(round + 1), changes: changes)]))
                let encoder = JSONEncoder()
                let ids = try changes.map { String(decoding: try encoder.encode($0.id), as: UTF8.self) }
                let columns = try changes.map { String(decoding: try encoder.encode($0.columns), as: UTF8.self) }

                // The three variants, in a rotating order (A B C, B C A, C A B, …).
                var rawTime = Duration.zero, bulkTime = Duration.zero, pushTime = Duration.zero
                var response: PushResponse?
                let order = (0..<3).map { ($0 + round) % 3 }
                for variant in order {
                    let started = clock.now
                    switch variant {
                    case 0:
                        // Raw: one INSERT per row, one transaction, on one connection.
                        try await client.withTransaction(logger: logger) { connection in
                            for index in 0..<count {
                                try await connection.query("""
                                    INSERT INTO raw_rows (space, tbl, rid, id, version, deleted, columns)
                                    VALUES (1, 'todo', \(changes[index].id.key + "-raw"), \(ids[index])::json, nextval('raw_version'), false, \(columns[index])::json)
                                    """, logger: logger)
                            }
                        }
                        rawTime = clock.now - started
                    case 1:
                        // Raw bulk: the same rows in one unnest INSERT (for reference).
                        try await client.withTransaction(logger: logger) { connection in
                            _ = try await connection.query("""
                                INSERT INTO raw_rows (space, tbl, rid, id, version, deleted, columns)
                                SELECT 1, 'todo', u.rid, u.id::json, nextval('raw_version'), false, u.columns::json
                                FROM unnest(\(changes.map { $0.id.key + "-bulk" }), \(ids), \(columns)) AS u(rid, id, columns)
                                """, logger: logger)
                        }
                        bulkTime = clock.now - started
                    default:
                        // The server: the same rows as one push over HTTP.
                        let answer = try await send(session, base, "POST", SyncProtocol.pushPath, token, body, expect: 200)
                        pushTime = clock.now - started
                        response = try JSONDecoder().decode(PushResponse.self, from: answer)
                    }
                }
                guard let response, response.results.count == count, response.results.allSatisfy(\.applied) else {
                    throw SyncServerError("the push did not apply all \(count) changes")
                }
                if round > 0 { raw.append(rawTime); bulk.append(bulkTime); pushed.append(pushTime) }
                print("round \(round)\(round == 0 ? " (warm-up)" : ""): raw \(ms(rawTime)) ms, raw bulk \(ms(bulkTime)) ms, push \(ms(pushTime)) ms")
            }
            let rawMedian = median(raw), bulkMedian = median(bulk), pushMedian = median(pushed)
            func perSecond(_ time: Duration) -> String { String(format: "%.0f", Double(count) / seconds(time)) }
            print("""
                Server apply throughput, \(count) upserts, median of \(rounds) rounds:
                  pushed through HTTP (one push):        \(ms(pushMedian)) ms  \(perSecond(pushMedian)) rows/s
                  raw postgres-nio inserts (one tx):     \(ms(rawMedian)) ms  \(perSecond(rawMedian)) rows/s
                  raw bulk unnest insert (reference):    \(ms(bulkMedian)) ms  \(perSecond(bulkMedian)) rows/s
                  ratio push ÷ raw inserts:              \(String(format: "%.2f", seconds(rawMedian) / seconds(pushMedian)))×  (target ≥ 0.5×)
                  ratio push ÷ raw bulk insert:          \(String(format: "%.2f", seconds(bulkMedian) / seconds(pushMedian)))×
                """)
        }
    }

    static func send(_ session: URLSession, _ base: URL, _ method: String, _ path: String, _ token: String, _ body: Data,
                     expect status: Int) async throws -> Data {
        try await BenchHTTP.send(session, base, method, path, token, body, expect: status)
    }

    static func seconds(_ duration: Duration) -> Double { BenchHTTP.seconds(duration) }

    static func ms(_ duration: Duration) -> String { BenchHTTP.ms(duration) }

    static func median(_ values: [Duration]) -> Duration { BenchHTTP.median(values) }
}
