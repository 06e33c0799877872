import Benchmark
import BenchmarkSupport
import Foundation
import GRDB
import OrderedCollections
import SwiduxSQLite
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

// External changes (issue 13):
// a. Latency from a commit by another connection (B) to the change visible in the store
//    that follows the file (A), default feed interval: p50 / p95 over 200 commits (target
//    p95 ≤ 250 ms). B is a second SwiduxDatabase on the file in this process: the feed sees
//    it exactly as another process's (a WAL commit noticed through PRAGMA data_version).
// b. CPU time of an idle feed following a quiet database, over 30 s, as a share of one core
//    (target ≤ 1%): process CPU time during the 30 s ÷ 30 s, minus the same measured
//    without a feed.
// c. Applying an external batch of 1,000 changed rows into a 100,000-entity store ÷ into a
//    1,000-entity store (interleaved, medians; target ≤ 1.5). Baselines in the same rounds:
//    the same 1,000 upserts (compare, then replace) into a `Dictionary` and an
//    `OrderedDictionary` of 100,000 ÷ 1,000 rows, i.e. what the data structure alone costs
//    when its working set leaves the caches.

struct Row: Codable, Identifiable, Equatable, Sendable {
    var id: Int
    var title: String
}

struct FollowState: Sendable {
    var rows = EntityStore<Row>()
}

struct NoAction: SwiduxReducer {
    func reduce(state: inout FollowState, action: Never, environment: Void) -> Effect<Never>? {}
}

let table = EntityTable<Row>(named: "row")
let migrations = SwiduxMigrations { m in
    m.register("v1") { db in try db.createEntityTable(table) }
}

func temporaryPath() -> String {
    let directory = FileManager.default.temporaryDirectory.appending(path: "swidux-external-bench-\(UUID().uuidString)")
    try! FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    return directory.appending(path: "bench.sqlite").path
}

@MainActor
func follower(_ path: String) throws -> (SwiduxDatabase, Store<FollowState, Never>) {
    let database = try SwiduxDatabase(path: path, migrations: migrations)
    let persistence = PersistenceMiddleware<FollowState>(writers: [database.stateWriter(for: \.rows, table: table)])
    var state = FollowState()
    state.rows = try database.hydrate(table)
    let store = Store(initialState: state, reducer: NoAction(), environment: (), persistence: persistence)
    try store.follow(database)
    return (database, store)
}

func percentile(_ values: [Double], _ p: Double) -> Double {
    let sorted = values.sorted()
    return sorted[min(sorted.count - 1, Int((Double(sorted.count - 1) * p).rounded()))]
}

@MainActor
func measureLatency(commits: Int) async throws -> (p50: Double, p95: Double, max: Double) {
    let path = temporaryPath()
    let (a, store) = try follower(path)
    let b = try SwiduxDatabase(path: path, migrations: migrations)
    try await Task.sleep(for: .milliseconds(200))   // the feed's first poll
    var latencies: [Double] = []
    for i in 0..<commits {
        try await b.performAtomically([{ db in
            try table.write(WriteBatch(writes: [Row(id: i, title: "row \(i)")], insertions: [i]), in: db)
        }])
        let committed = ContinuousClock.now
        while store.state.rows[i] == nil { try await Task.sleep(for: .microseconds(500)) }
        let elapsed = ContinuousClock.now - committed
        latencies.append(Double(elapsed.components.attoseconds) / 1e15 + Double(elapsed.components.seconds) * 1000)
        // Commits spread over the polling interval, as real ones are.
        try await Task.sleep(for: .milliseconds(Int.random(in: 0...20)))
    }
    try b.close()
    try a.close()
    return (percentile(latencies, 0.5), percentile(latencies, 0.95), latencies.max() ?? 0)
}

func cpuSeconds() -> Double {
    var usage = rusage()
    #if os(Linux)
    getrusage(Int32(RUSAGE_SELF.rawValue), &usage)
    #else
    getrusage(RUSAGE_SELF, &usage)
    #endif
    return Double(usage.ru_utime.tv_sec) + Double(usage.ru_utime.tv_usec) / 1e6
        + Double(usage.ru_stime.tv_sec) + Double(usage.ru_stime.tv_usec) / 1e6
}

@MainActor
func measureIdleCPU(seconds: Int) async throws -> (withFeed: Double, without: Double) {
    let quiet = ContinuousClock.now
    let before0 = cpuSeconds()
    try await Task.sleep(for: .seconds(seconds))
    let without = (cpuSeconds() - before0) / (ContinuousClock.now - quiet).seconds
    let path = temporaryPath()
    let (database, store) = try follower(path)
    try await Task.sleep(for: .milliseconds(500))
    let start = ContinuousClock.now
    let before = cpuSeconds()
    try await Task.sleep(for: .seconds(seconds))
    let withFeed = (cpuSeconds() - before) / (ContinuousClock.now - start).seconds
    _ = store
    try database.close()
    return (withFeed, without)
}

extension Duration {
    var seconds: Double { Double(components.seconds) + Double(components.attoseconds) / 1e18 }
}

struct ApplyResult {
    var large: Double, small: Double
    var dictionaryLarge: Double, dictionarySmall: Double
    var orderedLarge: Double, orderedSmall: Double
}

/// The same 1,000 upserts as `measureApply`'s batches: compare, replace if different.
@inline(never)
func upsertBaseline<D>(_ rows: [Row], into table: inout D, get: (D, Int) -> Row?, set: (inout D, Row) -> Void) {
    for row in rows where get(table, row.id) != row { set(&table, row) }
}

@MainActor
func measureApply(rounds: Int) -> ApplyResult {
    func make(_ n: Int) -> Store<FollowState, Never> {
        let writer = StateWriter<FollowState>(keyPath: \.rows, writeBatch: { _ in })
        let persistence = PersistenceMiddleware<FollowState>(writers: [writer])
        let state = FollowState(rows: EntityStore((0..<n).map { Row(id: $0, title: "row \($0)") }))
        return Store(initialState: state, reducer: NoAction(), environment: (), persistence: persistence)
    }
    let large = make(100_000), small = make(1_000)
    var generation = 0
    func batch(_ n: Int) -> ExternalChanges<FollowState> {
        generation += 1
        var changes = ExternalChanges<FollowState>(origin: "bench")
        // 1,000 changed rows spread over the store.
        for k in 0..<1_000 {
            let id = (k * (n / 1_000)) % n
            changes.upsert(Row(id: id, title: "g\(generation) \(id)"), in: \.rows)
        }
        return changes
    }
    func rows(_ n: Int) -> [Row] {
        generation += 1
        return (0..<1_000).map { k in
            let id = (k * (n / 1_000)) % n
            return Row(id: id, title: "g\(generation) \(id)")
        }
    }
    func table(_ n: Int) -> [Int: Row] { Dictionary(uniqueKeysWithValues: (0..<n).map { ($0, Row(id: $0, title: "row \($0)")) }) }
    var dictionaries = [table(100_000), table(1_000)]
    var ordered = [OrderedDictionary(uniqueKeysWithValues: dictionaries[0].sorted { $0.key < $1.key }),
                   OrderedDictionary(uniqueKeysWithValues: dictionaries[1].sorted { $0.key < $1.key })]
    func dictionary(_ which: Int, _ n: Int) -> Double {
        let batch = rows(n)
        return nanoseconds {
            upsertBaseline(batch, into: &dictionaries[which], get: { $0[$1] }, set: { $0[$1.id] = $1 })
        }
    }
    func orderedDictionary(_ which: Int, _ n: Int) -> Double {
        let batch = rows(n)
        return nanoseconds {
            upsertBaseline(batch, into: &ordered[which], get: { $0[$1] }, set: { $0[$1.id] = $1 })
        }
    }
    let medians = interleaved(rounds: rounds, [
        { let changes = batch(100_000); return nanoseconds { large.applyExternalChanges(changes) } },
        { let changes = batch(1_000); return nanoseconds { small.applyExternalChanges(changes) } },
        { dictionary(0, 100_000) }, { dictionary(1, 1_000) },
        { orderedDictionary(0, 100_000) }, { orderedDictionary(1, 1_000) },
    ])
    blackHole(dictionaries)
    blackHole(ordered)
    return ApplyResult(large: medians[0], small: medians[1], dictionaryLarge: medians[2], dictionarySmall: medians[3],
                       orderedLarge: medians[4], orderedSmall: medians[5])
}

enum Metrics {
    static let ratio = BenchmarkMetric.custom("ratio ×1000")
    static let dictionaryRatio = BenchmarkMetric.custom("Dictionary ratio ×1000")
    static let orderedRatio = BenchmarkMetric.custom("OrderedDictionary ratio ×1000")
    static let p50 = BenchmarkMetric.custom("p50 µs", useScalingFactor: false)
    static let p95 = BenchmarkMetric.custom("p95 µs", useScalingFactor: false)
    static let cpu = BenchmarkMetric.custom("CPU of a core ×100000", useScalingFactor: false)
}

let benchmarks: @Sendable () -> Void = {
    Benchmark.defaultConfiguration = .init(metrics: [.wallClock], warmupIterations: 0, maxDuration: .seconds(120), maxIterations: 1)

    Benchmark("External: commit in B → visible in A, 200 commits", configuration: .init(metrics: [Metrics.p50, Metrics.p95])) { benchmark async in
        let r = try! await measureLatency(commits: 200)
        benchmark.measurement(Metrics.p50, Int(r.p50 * 1000))
        benchmark.measurement(Metrics.p95, Int(r.p95 * 1000))
        report("external-latency", ["p50_ms": format(r.p50), "p95_ms": format(r.p95), "max_ms": format(r.max)])
    }

    Benchmark("External: idle feed CPU over 30 s", configuration: .init(metrics: [Metrics.cpu])) { benchmark async in
        let r = try! await measureIdleCPU(seconds: 30)
        benchmark.measurement(Metrics.cpu, Int(((r.withFeed - r.without) * 100_000).rounded()))
        report("external-idle-cpu", ["with_feed_percent": format(r.withFeed * 100, 3),
                                     "without_percent": format(r.without * 100, 3),
                                     "feed_percent": format((r.withFeed - r.without) * 100, 3)])
    }

    Benchmark("External: apply 1,000 changed rows, 100k ÷ 1k entities", configuration: .init(metrics: [Metrics.ratio, Metrics.dictionaryRatio, Metrics.orderedRatio])) { benchmark async in
        let r = await measureApply(rounds: 21)
        benchmark.measurement(Metrics.ratio, permille(r.large / r.small))
        benchmark.measurement(Metrics.dictionaryRatio, permille(r.dictionaryLarge / r.dictionarySmall))
        benchmark.measurement(Metrics.orderedRatio, permille(r.orderedLarge / r.orderedSmall))
        report("external-apply", ["large_us": format(r.large / 1000), "small_us": format(r.small / 1000),
                                  "ratio": format(r.large / r.small, 3),
                                  "dictionary_large_us": format(r.dictionaryLarge / 1000),
                                  "dictionary_small_us": format(r.dictionarySmall / 1000),
                                  "dictionary_ratio": format(r.dictionaryLarge / r.dictionarySmall, 3),
                                  "ordered_large_us": format(r.orderedLarge / 1000),
                                  "ordered_small_us": format(r.orderedSmall / 1000),
                                  "ordered_ratio": format(r.orderedLarge / r.orderedSmall, 3)])
    }
}
