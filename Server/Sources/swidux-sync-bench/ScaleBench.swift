import Foundation
import Logging
import PostgresNIO
import PostgresTestSupport
import SwiduxSyncServer
import SwiduxSyncWire
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Sync at scale, server side (large pushes and pulls): a `swidux-sync-server` child
/// process (release, next to this executable) on the throwaway cluster, one client.
///
/// Per round, in a rotating order against raw postgres-nio baselines on the same database:
/// - 20 pushes of 1,000 rows (one mutation each) ÷ the same rows as 20 `unnest` inserts;
/// - `SWIDUX_BENCH_SCALE_ROWS` (default 100,000) rows in pushes of `SWIDUX_BENCH_PUSH_ROWS`
///   (default 10,000) ÷ the same rows as `unnest` inserts of that size, one transaction each;
/// - the pull of those rows in pages of 10,000 ÷ a keyset `SELECT` of the same rows and
///   columns in pages of 10,000.
///
/// Timed: the HTTP requests (the client's bodies are encoded before, its answers decoded
/// after). The pushes ask for results without the rows' columns, as SwiduxSync does. The server's peak RSS (`VmHWM`, reset before each phase) is read during the
/// large push and the full pull.
enum ScaleBench {
    struct Figures {
        var small: [Duration] = [], smallRaw: [Duration] = []
        var large: [Duration] = [], largeRaw: [Duration] = []
        var pull: [Duration] = [], pullRaw: [Duration] = []
        var peakPush = 0.0, peakPull = 0.0
        /// The server's CPU seconds during the large push and during the pull, per round.
        var cpuPush: [Double] = [], cpuPull: [Double] = []
    }

    static func run(cluster: PostgresCluster, rows: Int, pushRows: Int, rounds: Int, logger: Logger) async throws {
        let postgres = try await cluster.createDatabase()
        let token = try await ServerProcess.createToken(postgres: postgres, space: "scale")
        let server = try await ServerProcess.start(postgres: postgres)
        let client = PostgresClient(configuration: try PostgresURL(postgres).clientConfiguration, backgroundLogger: logger)
        do {
            try await withThrowingTaskGroup(of: Void.self) { group in
                group.addTask { await client.run() }
                defer { group.cancelAll() }
                try await measure(server: server, token: token, client: client, rows: rows, pushRows: pushRows,
                                  rounds: rounds, logger: logger)
            }
            await server.stop()
        } catch {
            await server.kill()
            throw error
        }
    }

    private static func measure(server: ServerProcess, token: String, client: PostgresClient, rows: Int, pushRows: Int,
                                rounds: Int, logger: Logger) async throws {
        let session = URLSession(configuration: .ephemeral)
        let base = server.url
        let pid = server.child.processIdentifier
        _ = try await BenchHTTP.send(session, base, "PUT", SyncProtocol.tablesPath, token,
                                     try JSONEncoder().encode(TablesRequest(tables: ["todo"])), expect: 204)
        try await client.query("""
            CREATE TABLE raw_rows (space bigint NOT NULL, tbl text NOT NULL, rid text NOT NULL, id json NOT NULL,
                version bigint NOT NULL, deleted boolean NOT NULL, columns json, PRIMARY KEY (space, tbl, rid))
            """, logger: logger)
        try await client.query("CREATE INDEX raw_rows_space_version ON raw_rows (space, version)", logger: logger)
        try await client.query("CREATE SEQUENCE raw_version", logger: logger)
        print("server process \(pid): RSS after start \(mib(ProcessUsage.read(pid: pid)?.residentMiB))")

        var figures = Figures()
        var mutation: Int64 = 0
        let clock = ContinuousClock()
        for round in 0...rounds {   // round 0 warms up and is not counted
            // 20 × 1,000, then the large push, each against its raw baseline (order alternates).
            let small = (0..<20).map { batch in changes(round: round, prefix: "s\(batch)", count: 1000) }
            let large = stride(from: 0, to: rows, by: pushRows).map { start in
                changes(round: round, prefix: "l", range: start..<min(rows, start + pushRows))
            }
            var smallBodies: [Data] = [], largeBodies: [Data] = []
            for batch in small { mutation += 1; smallBodies.append(try body(batch, mutation: mutation)) }
            for batch in large { mutation += 1; largeBodies.append(try body(batch, mutation: mutation)) }
            let smallRaw = try small.map(rawColumns), largeRaw = try large.map(rawColumns)

            var smallTime = Duration.zero, smallRawTime = Duration.zero, largeTime = Duration.zero, largeRawTime = Duration.zero
            var answers: [Data] = []
            for serverFirst in round % 2 == 0 ? [true, false] : [false, true] {
                if serverFirst {
                    var started = clock.now
                    for body in smallBodies {
                        answers.append(try await BenchHTTP.send(session, base, "POST", SyncProtocol.pushPath, token, body, expect: 200))
                    }
                    smallTime = clock.now - started
                    ProcessUsage.resetPeak(pid: pid)
                    let cpu = cpuSeconds(pid)
                    started = clock.now
                    for body in largeBodies {
                        answers.append(try await BenchHTTP.send(session, base, "POST", SyncProtocol.pushPath, token, body, expect: 200))
                    }
                    largeTime = clock.now - started
                    if round > 0 { figures.cpuPush.append(cpuSeconds(pid) - cpu) }
                    figures.peakPush = max(figures.peakPush, ProcessUsage.read(pid: pid)?.peakMiB ?? 0)
                } else {
                    smallRawTime = try await rawInsert(smallRaw, client: client, tag: "r\(round)", logger: logger)
                    largeRawTime = try await rawInsert(largeRaw, client: client, tag: "r\(round)", logger: logger)
                }
            }
            // The answers, checked untimed; the large push's rows start after the small ones' last version.
            var firstLarge: Int64 = .max
            for (index, answer) in answers.enumerated() {
                let response = try JSONDecoder().decode(PushResponse.self, from: answer)
                guard response.results.allSatisfy(\.applied) else { throw BenchFailure("a push was not applied in full") }
                if index >= smallBodies.count { firstLarge = min(firstLarge, response.results.map(\.current.version).min() ?? .max) }
            }
            guard answers.count == smallBodies.count + largeBodies.count else { throw BenchFailure("missing push answers") }
            let after = firstLarge - 1

            // The pull of the large push's rows, pages of 10,000, against the raw keyset read.
            var pullTime = Duration.zero, pullRawTime = Duration.zero
            for serverFirst in round % 2 == 0 ? [false, true] : [true, false] {
                if serverFirst {
                    ProcessUsage.resetPeak(pid: pid)
                    let cpu = cpuSeconds(pid)
                    let (time, count) = try await pullAll(session: session, base: base, token: token, after: after)
                    guard count == rows else { throw BenchFailure("pulled \(count) rows, expected \(rows)") }
                    pullTime = time
                    if round > 0 { figures.cpuPull.append(cpuSeconds(pid) - cpu) }
                    figures.peakPull = max(figures.peakPull, ProcessUsage.read(pid: pid)?.peakMiB ?? 0)
                } else {
                    let (time, count) = try await rawPull(client: client, after: after, logger: logger)
                    guard count == rows else { throw BenchFailure("raw read \(count) rows, expected \(rows)") }
                    pullRawTime = time
                }
            }
            print("round \(round)\(round == 0 ? " (warm-up)" : ""): 20×1,000 push \(BenchHTTP.ms(smallTime)) ms (raw \(BenchHTTP.ms(smallRawTime)) ms), "
                  + "\(rows) push \(BenchHTTP.ms(largeTime)) ms (raw \(BenchHTTP.ms(largeRawTime)) ms), "
                  + "pull \(BenchHTTP.ms(pullTime)) ms (raw \(BenchHTTP.ms(pullRawTime)) ms)")
            if round > 0 {
                figures.small.append(smallTime); figures.smallRaw.append(smallRawTime)
                figures.large.append(largeTime); figures.largeRaw.append(largeRawTime)
                figures.pull.append(pullTime); figures.pullRaw.append(pullRawTime)
            }
        }
        report(figures, rows: rows, pushRows: pushRows, rounds: rounds)
    }

    private static func report(_ figures: Figures, rows: Int, pushRows: Int, rounds: Int) {
        func line(_ name: String, _ count: Int, _ server: [Duration], _ raw: [Duration], target: String) -> String {
            let (s, r) = (BenchHTTP.median(server), BenchHTTP.median(raw))
            return "  \(name): \(BenchHTTP.ms(s)) ms  \(BenchHTTP.rate(count, s)) rows/s (target \(target));  raw postgres-nio \(BenchHTTP.ms(r)) ms  "
                + "\(BenchHTTP.rate(count, r)) rows/s;  server ÷ raw \(String(format: "%.2f", BenchHTTP.seconds(r) / BenchHTTP.seconds(s)))×"
        }
        print("""
            Sync at scale, server side, one client, median of \(rounds) rounds:
            \(line("push 20 × 1,000 rows", 20_000, figures.small, figures.smallRaw, target: "≥ 100,000"))
            \(line("push \(rows) rows, \(pushRows) a push", rows, figures.large, figures.largeRaw, target: "≥ 100,000"))
            \(line("pull \(rows) rows, pages of 10,000", rows, figures.pull, figures.pullRaw, target: "≥ 200,000"))
              server peak RSS (VmHWM, reset before each phase): during the \(rows)-row push \(mib(figures.peakPush)), \
            during the full pull \(mib(figures.peakPull))
              server CPU (user + system, median): during the \(rows)-row push \(cpu(figures.cpuPush, rows)), \
            during the full pull \(cpu(figures.cpuPull, rows))
            """)
    }

    private static func mib(_ value: Double?) -> String { value.map { String(format: "%.1f MiB", $0) } ?? "n/a" }

    private static func cpuSeconds(_ pid: Int32) -> Double { ProcessUsage.read(pid: pid)?.cpuSeconds ?? 0 }

    /// The median of `seconds`, and per row.
    private static func cpu(_ seconds: [Double], _ rows: Int) -> String {
        guard !seconds.isEmpty else { return "n/a" }
        let median = seconds.sorted()[seconds.count / 2]
        return String(format: "%.2f s (%.1f µs a row)", median, median * 1e6 / Double(rows))
    }

    static func changes(round: Int, prefix: String, count: Int) -> [SyncChange] {
        changes(round: round, prefix: prefix, range: 0..<count)
    }

    static func changes(round: Int, prefix: String, range: Range<Int>) -> [SyncChange] {
        range.map { index in
            SyncChange(table: "todo", id: .text("\(prefix)\(round)-\(index)"), kind: .insert, columns: [
                "title": .text("Todo number \(index) of round \(round)"), "done": .integer(Int64(index % 2)),
                "position": .integer(Int64(index)), "list": .text("inbox"),
            ])
        }
    }

    /// A push as SwiduxSync's client sends it: results without the rows' columns
    /// (``SwiduxSyncWire/PushRequest/resultColumns``).
    private static func body(_ changes: [SyncChange], mutation: Int64) throws -> Data {
        try JSONEncoder().encode(PushRequest(clientID: "scale", mutations: [SyncMutation(id: mutation, changes: changes)],
                                             resultColumns: false))
    }

    /// rid, id JSON, columns JSON per change, for the raw inserts.
    private static func rawColumns(_ changes: [SyncChange]) throws -> ([String], [String], [String]) {
        let encoder = JSONEncoder()
        return (changes.map(\.id.key),
                try changes.map { String(decoding: try encoder.encode($0.id), as: UTF8.self) },
                try changes.map { String(decoding: try encoder.encode($0.columns), as: UTF8.self) })
    }

    /// The batches as `unnest` inserts, one transaction each.
    private static func rawInsert(_ batches: [([String], [String], [String])], client: PostgresClient, tag: String,
                                  logger: Logger) async throws -> Duration {
        let clock = ContinuousClock()
        let started = clock.now
        for (rids, ids, columns) in batches {
            try await client.withTransaction(logger: logger) { connection in
                _ = try await connection.query("""
                    INSERT INTO raw_rows (space, tbl, rid, id, version, deleted, columns)
                    SELECT 1, 'todo', u.rid || \(tag), u.id::json, nextval('raw_version'), false, u.columns::json
                    FROM unnest(\(rids), \(ids), \(columns)) AS u(rid, id, columns)
                    """, logger: logger)
            }
        }
        return clock.now - started
    }

    /// Every page after `after` through HTTP: the time of the requests, and the rows.
    private static func pullAll(session: URLSession, base: URL, token: String, after: Int64) async throws -> (Duration, Int) {
        let clock = ContinuousClock()
        var cursor = after, count = 0, time = Duration.zero
        while true {
            let started = clock.now
            let data = try await BenchHTTP.send(session, base, "GET", SyncProtocol.pullPath, token, nil,
                                                query: "after=\(cursor)&limit=10000", expect: 200)
            time += clock.now - started
            let page = try JSONDecoder().decode(PullResponse.self, from: data)
            count += page.rows.count
            cursor = page.cursor
            if !page.hasMore { return (time, count) }
        }
    }

    /// The same rows and columns read with postgres-nio, keyset pages of 10,000.
    private static func rawPull(client: PostgresClient, after: Int64, logger: Logger) async throws -> (Duration, Int) {
        let clock = ContinuousClock()
        let started = clock.now
        var cursor = after, count = 0
        try await client.withConnection { connection in
            while true {
                var fetched = 0
                let rows = try await connection.query("""
                    SELECT tbl, id::text, version, deleted, columns::text FROM sync_rows
                    WHERE space = (SELECT id FROM sync_spaces WHERE name = 'scale') AND version > \(cursor)
                    ORDER BY version LIMIT 10000
                    """, logger: logger)
                for try await (_, _, version, _, _) in rows.decode((String, String, Int64, Bool, String?).self) {
                    fetched += 1
                    cursor = version
                }
                count += fetched
                if fetched < 10000 { return }
            }
        }
        return (clock.now - started, count)
    }
}
