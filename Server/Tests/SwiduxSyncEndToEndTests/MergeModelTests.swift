import Foundation
import GRDB
import PostgresTestSupport
import SwiduxSQLite
import SwiduxSync
import SwiduxSyncWire
import SwiduxTesting
import Testing

/// Issue 43: a randomized model test of the merge by column, through the real server and
/// PostgreSQL. Four devices — one on an older schema that lacks a column — edit random
/// columns of shared rows offline, delete rows, and sync in a random order. A reference
/// model applies the same pushes in the same (server) order, column by column: after every
/// device synced, each device and the server hold the model's rows, and each device lists
/// exactly the conflicts the model recorded for it — every pushed value that a later push
/// replaced without having seen it.
@Suite("Merge by column: model", .serialized)
struct MergeModelTests {
    static var steps: Int { ProcessInfo.processInfo.environment["SWIDUX_SYNC_STEPS"].flatMap(Int.init) ?? 160 }

    static let newSchema = SwiduxMigrations { m in
        m.register("v1") { db in
            try db.execute(sql: "CREATE TABLE item (id TEXT PRIMARY KEY NOT NULL, a TEXT NOT NULL DEFAULT '', b INTEGER NOT NULL DEFAULT 0, c TEXT NOT NULL DEFAULT '')")
        }
    }
    static let oldSchema = SwiduxMigrations { m in
        m.register("v1") { db in
            try db.execute(sql: "CREATE TABLE item (id TEXT PRIMARY KEY NOT NULL, a TEXT NOT NULL DEFAULT '', b INTEGER NOT NULL DEFAULT 0)")
        }
    }

    typealias Columns = [String: SyncValue]

    /// One device: its file, client and the columns its schema has.
    struct ModelDevice {
        let index: Int
        let database: SwiduxDatabase
        let client: SyncClient
        let columns: [String]

        func write(_ sql: String, _ arguments: StatementArguments = []) async throws {
            try await database.writer.write { db in try db.execute(sql: sql, arguments: arguments) }
        }

        func rows() async throws -> [String: Columns] {
            try await database.writer.read { db in
                var rows: [String: Columns] = [:]
                for row in try Row.fetchAll(db, sql: "SELECT * FROM item") {
                    var columns: Columns = [:]
                    for (name, value) in row where name != "id" { columns[name] = syncValue(value) }
                    rows[row["id"]] = columns
                }
                return rows
            }
        }
    }

    /// The server as the model sees it: per row, its version and, per column, the value and
    /// who wrote it at which version (`nil`: the row's insert, which never conflicts).
    struct ServerRow {
        var version: Int64
        var deleted = false
        var columns: [String: (value: SyncValue, version: Int64, writer: Int?)] = [:]
        var values: Columns { columns.mapValues(\.value) }
    }

    struct Conflict: Hashable, CustomStringConvertible {
        var row: String, column: String, kept: SyncValue, replaced: SyncValue
        var description: String { "\(row).\(column): kept \(kept), replaced \(replaced)" }
    }

    /// The model: the server's rows, each device's base versions, and the conflicts owed to each.
    struct Model {
        var clock: Int64 = 0
        var server: [String: ServerRow] = [:]
        var bases: [[String: Int64]]
        var conflicts: [[Conflict]]

        init(devices: Int) {
            bases = Array(repeating: [:], count: devices)
            conflicts = Array(repeating: [], count: devices)
        }

        /// Device `device` pushes: `updates` (row → changed columns, their local values) and
        /// `deletes`, then pulls — after which its bases are the server's versions.
        mutating func sync(device: Int, updates: [String: Columns], deletes: Set<String>) {
            for id in deletes.sorted() {
                guard var row = server[id], !row.deleted else { continue }
                clock += 1
                row.version = clock
                row.deleted = true
                row.columns = [:]
                server[id] = row
            }
            for (id, changed) in updates.sorted(by: { $0.key < $1.key }) {
                guard var row = server[id] else { continue }
                let base = bases[device][id] ?? 0
                // Delete wins over a stale update.
                if row.deleted { continue }
                clock += 1
                for (column, value) in changed {
                    if let stored = row.columns[column], let writer = stored.writer, stored.version > base, writer != device,
                       stored.value != value {
                        conflicts[writer].append(Conflict(row: id, column: column, kept: value, replaced: stored.value))
                    }
                    row.columns[column] = (value, clock, device)
                }
                row.version = clock
                server[id] = row
            }
            for (id, row) in server { bases[device][id] = row.version }
        }
    }

    @Test("4 devices (one lacking a column), random column edits offline, deletes, random sync order: the model's rows and conflicts")
    func modelHolds() async throws {
        let seed = ProcessInfo.processInfo.environment["SWIDUX_SYNC_SEED"].flatMap(UInt64.init) ?? UInt64(Date().timeIntervalSince1970)
        var random = SeededRandomNumberGenerator(seed: seed)
        let fixture = try await SyncServerFixture.start(space: "merge-model")
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let devices = try (0..<4).map { index -> ModelDevice in
            let old = index == 2
            let database = try SwiduxDatabase(path: directory.appendingPathComponent("d\(index).sqlite").path,
                                              migrations: old ? Self.oldSchema : Self.newSchema)
            let client = try SyncClient(database: database, server: fixture.server.url, token: fixture.token,
                                        tables: [SyncTable(name: "item")], pageSize: 7)
            return ModelDevice(index: index, database: database, client: client, columns: old ? ["a", "b"] : ["a", "b", "c"])
        }
        var model = Model(devices: devices.count)
        let ids = (0..<8).map { "r\($0)" }

        // Device 0 makes the rows; every device syncs them.
        for id in ids {
            try await devices[0].write("INSERT INTO item (id, a, b, c) VALUES (?, ?, 0, ?)", [id, "a-" + id, "c-" + id])
        }
        try await devices[0].client.sync()
        model.clock += Int64(ids.count)
        for (offset, id) in ids.enumerated() {
            let version = Int64(offset + 1)
            model.server[id] = ServerRow(version: version, columns: ["a": (.text("a-" + id), version, nil), "b": (.integer(0), version, nil),
                                                                    "c": (.text("c-" + id), version, nil)])
        }
        model.bases[0] = model.server.mapValues(\.version)
        for device in devices.dropFirst() {
            try await device.client.sync()
            model.bases[device.index] = model.server.mapValues(\.version)
        }

        // Local edits not pushed yet, per device: row → changed columns; deletions.
        var updates = Array(repeating: [String: Columns](), count: devices.count)
        var deletes = Array(repeating: Set<String>(), count: devices.count)
        var online = Array(repeating: true, count: devices.count)
        for step in 0..<Self.steps {
            let device = devices[Int.random(in: 0..<devices.count, using: &random)]
            let d = device.index
            if Int.random(in: 0..<12, using: &random) == 0 { online[d].toggle() }
            switch Int.random(in: 0..<10, using: &random) {
            case 0..<6:   // edit one column of a row the device holds
                let id = ids.randomElement(using: &random)!
                let column = device.columns.randomElement(using: &random)!
                let value: SyncValue = column == "b" ? .integer(Int64(step * 10 + d)) : .text("\(column)-d\(d)-s\(step)")
                let exists = try await device.rows()[id] != nil
                guard exists else { continue }
                let argument: DatabaseValue = switch value {
                case .integer(let integer): integer.databaseValue
                case .text(let text): text.databaseValue
                default: .null
                }
                try await device.write("UPDATE item SET \(column) = ? WHERE id = ?", [argument, id])
                if !deletes[d].contains(id) { updates[d][id, default: [:]][column] = value }
            case 6:       // delete a row
                let id = ids.randomElement(using: &random)!
                guard try await device.rows()[id] != nil, Int.random(in: 0..<3, using: &random) == 0 else { continue }
                try await device.write("DELETE FROM item WHERE id = ?", [id])
                deletes[d].insert(id)
                updates[d][id] = nil
            default:      // sync, when online
                guard online[d] else { continue }
                let report = try await device.client.sync()
                #expect(report.pending == 0, "seed \(seed) step \(step): d\(d): \(report)")
                model.sync(device: d, updates: updates[d], deletes: deletes[d])
                updates[d] = [:]
                deletes[d] = []
                try await expectHolds(device, model, seed: seed, "step \(step)")
            }
        }

        // Everyone online, in order: each pushes what it has left and pulls everything.
        for device in devices {
            try await device.client.sync()
            model.sync(device: device.index, updates: updates[device.index], deletes: deletes[device.index])
        }
        for device in devices {
            let report = try await device.client.sync()
            #expect(report.pending == 0 && report.pushed == 0, "seed \(seed): d\(device.index): \(report)")
            try await expectHolds(device, model, seed: seed, "the end")
            let listed = try await device.client.conflicts().map {
                Conflict(row: Self.text($0.id), column: $0.column, kept: $0.kept, replaced: $0.replaced)
            }
            #expect(listed.sorted(by: { $0.description < $1.description }) == model.conflicts[device.index].sorted(by: { $0.description < $1.description }),
                    "seed \(seed): d\(device.index) lists \(listed), the model \(model.conflicts[device.index])")
        }
        // The server: the model's live rows, every column (the old device erased none).
        let server = try await serverSnapshot(server: fixture.server.url, token: fixture.token)
        let expected = model.server.filter { !$0.value.deleted }.mapValues(\.values)
        #expect(server["item"] == Dictionary(uniqueKeysWithValues: expected.map { (SyncValue.text($0.key).key, $0.value) }),
                "seed \(seed): the server differs from the model")
        #expect(model.conflicts.contains { !$0.isEmpty } || Self.steps < 40, "seed \(seed): no conflict: the test exercised little")
        await fixture.stop()
    }

    private static func text(_ value: SyncValue) -> String {
        if case .text(let text) = value { return text }
        return value.key
    }

    /// `device` holds the model's live rows, in the columns its schema has.
    private func expectHolds(_ device: ModelDevice, _ model: Model, seed: UInt64, _ when: String) async throws {
        let local = try await device.rows()
        var expected: [String: Columns] = [:]
        for (id, row) in model.server where !row.deleted {
            expected[id] = row.values.filter { device.columns.contains($0.key) }
        }
        #expect(local == expected, "seed \(seed), \(when): d\(device.index) holds \(local), the model \(expected)")
    }
}
