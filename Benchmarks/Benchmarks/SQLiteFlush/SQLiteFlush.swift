import Benchmark
import BenchmarkSupport
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

let itemTable = EntityTable<Item>(named: "item")
let migrations = SwiduxMigrations { m in
    m.register("v1") { db in try db.createEntityTable(itemTable) }
}
let upsertSQL = #"INSERT INTO "item" ("id", "data", "position") VALUES (?, ?, ?) ON CONFLICT("id") DO UPDATE SET "data" = excluded."data""#

/// A fresh temp directory per database, removed afterwards.
nonisolated(nonsending) func withTemporaryDirectory<T>(_ body: (String) async throws -> T) async rethrows -> T {
    let directory = FileManager.default.temporaryDirectory.appendingPathComponent("swidux-bench-\(UUID().uuidString)")
    try! FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: directory) }
    return try await body(directory.path)
}

/// The raw database: the same schema and pragmas as SwiduxDatabase, opened with GRDB directly.
func openRaw(_ path: String) throws -> DatabasePool {
    var configuration = Configuration()
    configuration.foreignKeysEnabled = true
    configuration.busyMode = .timeout(5)
    configuration.prepareDatabase { db in try db.execute(sql: "PRAGMA synchronous = FULL") }
    let pool = try DatabasePool(path: path, configuration: configuration)
    try pool.write { db in try db.createEntityTable(itemTable) }
    return pool
}

struct FlushResult: Sendable {
    var swiduxInsert: Double, rawInsert: Double, rawInsertPreencoded: Double
    var swiduxUpdate: Double, rawUpdate: Double
    var swiduxHydrate: Double, rawHydrate: Double
    var rows: Int
}

/// Raw upsert of `items` in one transaction with one cached statement; positions from `base`.
func rawUpsert(_ pool: DatabasePool, _ items: [Item], preencoded: [String]? = nil) throws {
    try pool.write { db in
        let base = try Int64.fetchOne(db, sql: #"SELECT max("position") FROM "item""#) ?? -1
        let statement = try db.cachedStatement(sql: upsertSQL)
        let encoder = JSONEncoder()
        for (offset, item) in items.enumerated() {
            let json = try preencoded?[offset] ?? String(decoding: encoder.encode(item), as: UTF8.self)
            try statement.execute(arguments: [item.id.databaseValue, json.databaseValue, (base + 1 + Int64(offset)).databaseValue])
        }
    }
}

func rawHydrate(_ pool: DatabasePool) throws -> [Item] {
    try pool.read { db in
        let decoder = JSONDecoder()
        var items: [Item] = []
        let rows = try Row.fetchCursor(db.cachedStatement(sql: #"SELECT data FROM "item" ORDER BY position, id"#))
        while let row = try rows.next() {
            items.append(try row.withUnsafeData(atIndex: 0) { try decoder.decode(Item.self, from: $0 ?? Data()) })
        }
        return items
    }
}

@MainActor
func measureFlush(count: Int, rounds: Int) async throws -> FlushResult {
    var samples: [[Double]] = Array(repeating: [], count: 7)
    var rows = 0
    for round in 0..<rounds {
        try await withTemporaryDirectory { dir in
            let items = Item.make(count, seed: UInt64(round))
            let database = try SwiduxDatabase(path: dir + "/swidux.sqlite", migrations: migrations)
            let raw = try openRaw(dir + "/raw.sqlite")
            let rawPre = try openRaw(dir + "/raw-preencoded.sqlite")
            let persistence = PersistenceMiddleware<AppState>(
                writers: [database.stateWriter(for: \.items, table: itemTable)], debounce: .seconds(3600))
            let encoder = JSONEncoder()
            let preencoded = try items.map { String(decoding: try encoder.encode($0), as: UTF8.self) }

            // Insert: 100k new entities recorded by the EntityStore, drained, flushed.
            var state = AppState()
            for item in items { state.items[item.id] = item }
            let swiduxInsert = try await nanoseconds {
                persistence.afterReduce(state: &state)
                try await persistence.flush()
            }
            let rawInsert = try nanoseconds { try rawUpsert(raw, items) }
            let rawPreencoded = try nanoseconds { try rawUpsert(rawPre, items, preencoded: preencoded) }

            // Update: every entity changed, upserted over its existing row.
            let changed = items.map { var item = $0; item.count &+= 1; return item }
            for item in changed { state.items.modify(item.id) { $0.count &+= 1 } }
            // Alternate which side goes first, so that neither always meets a warm page cache.
            var swiduxUpdate = 0.0, rawUpdate = 0.0
            if round % 2 == 0 {
                swiduxUpdate = try await nanoseconds { persistence.afterReduce(state: &state); try await persistence.flush() }
                rawUpdate = try nanoseconds { try rawUpsert(raw, changed) }
            } else {
                rawUpdate = try nanoseconds { try rawUpsert(raw, changed) }
                swiduxUpdate = try await nanoseconds { persistence.afterReduce(state: &state); try await persistence.flush() }
            }

            // Hydration of the 100k rows.
            var hydrated = EntityStore<Item>()
            var rawItems: [Item] = []
            let swiduxHydrate = try nanoseconds { hydrated = try database.hydrate(itemTable) }
            let rawHydrateTime = try nanoseconds { rawItems = try rawHydrate(raw) }
            precondition(hydrated.count == count && rawItems.count == count)
            precondition(hydrated.values == state.items.values, "hydrated what was flushed")
            precondition(rawItems == changed, "raw baseline wrote the same values")
            rows = try await database.writer.read { db in try Int.fetchOne(db, sql: "SELECT count(*) FROM item")! }

            for (k, v) in [swiduxInsert, rawInsert, rawPreencoded, swiduxUpdate, rawUpdate, swiduxHydrate, rawHydrateTime].enumerated() {
                samples[k].append(v)
            }
            try database.close()
            try raw.close()
            try rawPre.close()
        }
    }
    let m = samples.map(median)
    return FlushResult(swiduxInsert: m[0], rawInsert: m[1], rawInsertPreencoded: m[2],
                       swiduxUpdate: m[3], rawUpdate: m[4], swiduxHydrate: m[5], rawHydrate: m[6], rows: rows)
}

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
