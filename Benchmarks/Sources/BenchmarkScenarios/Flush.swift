import Foundation
import GRDB
import Swidux
import SwiduxSQLite
import BenchmarkSupport

// SQLite flush: changed entities persisted through PersistenceMiddleware + SwiduxSQLite
// (Codable mapping: id BLOB, position INTEGER, data TEXT JSON; WAL file in a temp dir) vs
// the raw limit: GRDB, one cached `INSERT … ON CONFLICT DO UPDATE` in one transaction, same
// columns and bytes, same pragmas (WAL, synchronous = FULL). Also: hydration vs a raw GRDB
// row cursor decoding the same JSON.

public let itemTable = EntityTable<Item>(named: "item")
public let migrations = SwiduxMigrations { m in
    m.register("v1") { db in try db.createEntityTable(itemTable) }
}
let upsertSQL = #"INSERT INTO "item" ("id", "data", "position") VALUES (?, ?, ?) ON CONFLICT("id") DO UPDATE SET "data" = excluded."data""#

/// A fresh temp directory per database, removed afterwards.
nonisolated(nonsending) public func withTemporaryDirectory<T>(_ body: (String) async throws -> T) async rethrows -> T {
    let directory = FileManager.default.temporaryDirectory.appendingPathComponent("swidux-bench-\(UUID().uuidString)")
    try! FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: directory) }
    return try await body(directory.path)
}

/// The raw database: the same schema and pragmas as SwiduxDatabase, opened with GRDB directly.
public func openRaw(_ path: String) throws -> DatabasePool {
    var configuration = Configuration()
    configuration.foreignKeysEnabled = true
    configuration.busyMode = .timeout(5)
    configuration.prepareDatabase { db in try db.execute(sql: "PRAGMA synchronous = FULL") }
    let pool = try DatabasePool(path: path, configuration: configuration)
    try pool.write { db in try db.createEntityTable(itemTable) }
    return pool
}

public struct FlushResult: Sendable {
    public var swiduxInsert: Double, rawInsert: Double, rawInsertPreencoded: Double
    public var swiduxUpdate: Double, rawUpdate: Double
    public var swiduxHydrate: Double, rawHydrate: Double
    public var rows: Int
}

/// Raw upsert of `items` in one transaction with one cached statement; positions from `base`.
public func rawUpsert(_ pool: DatabasePool, _ items: [Item], preencoded: [String]? = nil) throws {
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

public func rawHydrate(_ pool: DatabasePool) throws -> [Item] {
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
public func measureFlush(count: Int, rounds: Int) async throws -> FlushResult {
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

