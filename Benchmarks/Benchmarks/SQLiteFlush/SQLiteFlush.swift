import Benchmark
import BenchmarkSupport
import BenchmarkScenarios
import Foundation
import GRDB
import Swidux
import SwiduxSQLite

// 4. SQLite flush: 100,000 changed entities persisted through PersistenceMiddleware +
//    SwiduxSQLite (Codable mapping: id BLOB, position INTEGER, data TEXT JSON; WAL file in
//    a temp dir) vs the raw limit: GRDB, one cached `INSERT … ON CONFLICT DO UPDATE` in one
//    transaction, same columns and bytes, same pragmas (WAL, synchronous = FULL).
//    Also: hydration of 100,000 rows vs a raw GRDB row cursor decoding the same JSON.
// 5. Coalescing: 100,000 modifications of 100 entities inside one debounce window are
//    written as exactly 100 rows.

struct CoalescingResult: Sendable {
    var rowsWritten: Int
    var batchWrites: Int
    var sendsNanos: Double
    var sendsWithoutPersistenceNanos: Double
    var flushNanos: Double
}

/// Counts what a flush hands to the writer (the batch after coalescing).
final class WriteCounter: @unchecked Sendable {
    private let lock = NSLock()
    private var value = 0
    func add(_ n: Int) { lock.lock(); value += n; lock.unlock() }
    var total: Int { lock.lock(); defer { lock.unlock() }; return value }
}

@MainActor
func measureCoalescing(modifications: Int, entities: Int) async throws -> CoalescingResult {
    try await withTemporaryDirectory { dir in
        let items = Item.make(entities, seed: 9)
        let database = try SwiduxDatabase(path: dir + "/coalescing.sqlite", migrations: migrations)
        // Hydrate the rows first (so the flush is 100 updates), through a plain flush.
        try await database.performAtomically([{ db in try itemTable.write(WriteBatch(writes: items), in: db) }])
        let counter = WriteCounter()
        let persistence = PersistenceMiddleware<AppState>(
            writers: [StateWriter(keyPath: \AppState.items, backend: database, apply: { db, batch in
                counter.add(batch.writes.count + batch.deletions.count)
                return try itemTable.write(batch, in: db)
            })],
            debounce: .seconds(3600))
        persistence.loopWarningThreshold = .max   // 100k sends in one window are the point here
        let store = Store(initialState: AppState(items: EntityStore(items)), reducer: AppReducer(),
                          environment: (), persistence: persistence)
        let plain = Store(initialState: AppState(items: EntityStore(items)), reducer: AppReducer(), environment: ())
        let ids = items.map(\.id)

        // Interleaved rounds (with, without; then without, with; …), medians compared: one
        // timing of each side swung the ratio by ±0.25 between runs on a shared machine.
        let rounds = 5
        let perRound = modifications / rounds
        var withPersistence: [Double] = [], withoutPersistence: [Double] = []
        for round in 0..<rounds {
            let range = (round * perRound)..<((round + 1) * perRound)
            let timeWith = { nanoseconds { for i in range { store.send(.touch(ids[i % ids.count])) } } }
            let timeWithout = { nanoseconds { for i in range { plain.send(.touch(ids[i % ids.count])) } } }
            if round % 2 == 0 {
                withPersistence.append(timeWith())
                withoutPersistence.append(timeWithout())
            } else {
                withoutPersistence.append(timeWithout())
                withPersistence.append(timeWith())
            }
        }
        // Totals for all the sends, scaled from the medians (the ratio is theirs).
        let sends = median(withPersistence) * Double(rounds)
        let plainSends = median(withoutPersistence) * Double(rounds)
        precondition(persistence.flushCount == 0, "no flush inside the debounce window")
        let changesBefore = try await database.writer.write { db in db.totalChangesCount }
        let flush = try await nanoseconds { try await store.flush() }
        let changesAfter = try await database.writer.write { db in db.totalChangesCount }
        let rowsWritten = changesAfter - changesBefore
        precondition(counter.total == entities, "coalesced to \(entities) writes, got \(counter.total)")
        precondition(rowsWritten == entities, "wrote \(entities) rows, got \(rowsWritten)")
        let stored = try await database.hydrate(itemTable)
        precondition(stored.values == store.items.values, "the database holds the final values")
        try database.close()
        return CoalescingResult(rowsWritten: rowsWritten, batchWrites: counter.total, sendsNanos: sends,
                                sendsWithoutPersistenceNanos: plainSends, flushNanos: flush)
    }
}

let benchmarks: @Sendable () -> Void = {
    Benchmark.defaultConfiguration = .init(
        metrics: [.wallClock],
        warmupIterations: 0,
        maxDuration: .seconds(60),
        maxIterations: 1
    )
    let insertRatio = BenchmarkMetric.custom("insert rows/s ÷ raw ×1000", polarity: .prefersLarger)
    let insertPreRatio = BenchmarkMetric.custom("insert rows/s ÷ raw pre-encoded ×1000", polarity: .prefersLarger)
    let updateRatio = BenchmarkMetric.custom("update rows/s ÷ raw ×1000", polarity: .prefersLarger)
    let hydrateRatio = BenchmarkMetric.custom("hydrate rows/s ÷ raw ×1000", polarity: .prefersLarger)
    let swiduxRowsPerSecond = BenchmarkMetric.custom("Swidux insert rows/s", polarity: .prefersLarger, useScalingFactor: false)
    let rawRowsPerSecond = BenchmarkMetric.custom("raw insert rows/s", polarity: .prefersLarger, useScalingFactor: false)

    Benchmark(
        "SQLite flush + hydrate 100k: Swidux ÷ raw GRDB",
        configuration: .init(metrics: [insertRatio, insertPreRatio, updateRatio, hydrateRatio, swiduxRowsPerSecond, rawRowsPerSecond])
    ) { benchmark async in
        let n = 100_000
        let r: FlushResult
        do { r = try await measureFlush(count: n, rounds: 3) } catch { fatalError("\(error)") }
        // rows/s ratio = raw time ÷ Swidux time.
        benchmark.measurement(insertRatio, permille(r.rawInsert / r.swiduxInsert))
        benchmark.measurement(insertPreRatio, permille(r.rawInsertPreencoded / r.swiduxInsert))
        benchmark.measurement(updateRatio, permille(r.rawUpdate / r.swiduxUpdate))
        benchmark.measurement(hydrateRatio, permille(r.rawHydrate / r.swiduxHydrate))
        benchmark.measurement(swiduxRowsPerSecond, Int(Double(n) / (r.swiduxInsert / 1e9)))
        benchmark.measurement(rawRowsPerSecond, Int(Double(n) / (r.rawInsert / 1e9)))
        func ms(_ ns: Double) -> String { format(ns / 1e6, 1) }
        report("sqlite", [
            "rows": "\(r.rows)",
            "swidux_insert_ms": ms(r.swiduxInsert), "raw_insert_ms": ms(r.rawInsert), "raw_preencoded_insert_ms": ms(r.rawInsertPreencoded),
            "insert_ratio": format(r.rawInsert / r.swiduxInsert, 3), "insert_vs_preencoded": format(r.rawInsertPreencoded / r.swiduxInsert, 3),
            "swidux_update_ms": ms(r.swiduxUpdate), "raw_update_ms": ms(r.rawUpdate), "update_ratio": format(r.rawUpdate / r.swiduxUpdate, 3),
            "swidux_hydrate_ms": ms(r.swiduxHydrate), "raw_hydrate_ms": ms(r.rawHydrate), "hydrate_ratio": format(r.rawHydrate / r.swiduxHydrate, 3),
        ])
    }

    let rowsWritten = BenchmarkMetric.custom("rows written", useScalingFactor: false)
    let overhead = BenchmarkMetric.custom("sends with ÷ without persistence ×1000")
    let sendNanos = BenchmarkMetric.custom("ns/send (persistence on)", useScalingFactor: false)
    let flushMicros = BenchmarkMetric.custom("flush µs", useScalingFactor: false)

    Benchmark(
        "Coalescing: 100k modifications of 100 entities, one window",
        configuration: .init(metrics: [rowsWritten, overhead, sendNanos, flushMicros], maxIterations: 3)
    ) { benchmark async in
        let n = 100_000
        let r: CoalescingResult
        do { r = try await measureCoalescing(modifications: n, entities: 100) } catch { fatalError("\(error)") }
        benchmark.measurement(rowsWritten, r.rowsWritten)
        benchmark.measurement(overhead, permille(r.sendsNanos / r.sendsWithoutPersistenceNanos))
        benchmark.measurement(sendNanos, Int(r.sendsNanos / Double(n)))
        benchmark.measurement(flushMicros, Int(r.flushNanos / 1e3))
        report("coalescing", [
            "rows_written": "\(r.rowsWritten)", "batch_writes": "\(r.batchWrites)",
            "sends_ms": format(r.sendsNanos / 1e6, 1), "sends_without_persistence_ms": format(r.sendsWithoutPersistenceNanos / 1e6, 1),
            "overhead_ratio": format(r.sendsNanos / r.sendsWithoutPersistenceNanos, 3),
            "flush_ms": format(r.flushNanos / 1e6, 2),
        ])
    }
}
