import Foundation
import GRDB
import PostgresTestSupport
import SwiduxSQLite
import SwiduxSync
import SwiduxSyncWire
import SwiduxTesting
import Testing

/// Issue 29: devices whose files are copied over each other, restored from backups, and
/// moved between two spaces, with random edits between rounds. At the end every device
/// holds its space's server rows, and every row a device ever saw acknowledged (a sync that
/// left nothing pending) is on that space's server.
///
/// Size: `SWIDUX_SYNC_HOSTILE_STEPS` (default 60); seed: `SWIDUX_SYNC_SEED`.
@Suite("Convergence with copied, restored and re-spaced files", .serialized)
struct HostileConvergenceTests {
    static var steps: Int { ProcessInfo.processInfo.environment["SWIDUX_SYNC_HOSTILE_STEPS"].flatMap(Int.init) ?? 60 }

    /// A device slot: its file, its current space, and a device open on it.
    struct Slot {
        var device: Device
        var space: Int
        var backup: (path: String, space: Int)?
    }

    @Test("copies, restores and space switches between rounds: nothing acknowledged is lost, all converge")
    func copiesRestoresAndSpaceSwitchesConverge() async throws {
        let seed = ProcessInfo.processInfo.environment["SWIDUX_SYNC_SEED"].flatMap(UInt64.init) ?? UInt64(Date().timeIntervalSince1970)
        var random = SeededRandomNumberGenerator(seed: seed)
        let postgres = try await PostgresCluster.shared().createDatabase()
        let tokens = [try await ServerProcess.createToken(postgres: postgres, space: "one"),
                      try await ServerProcess.createToken(postgres: postgres, space: "two")]
        let server = try await ServerProcess.start(postgres: postgres)
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        func open(_ name: String, space: Int) throws -> Device {
            try Device(name: name, directory: directory, server: server.url, token: tokens[space], pageSize: 4)
        }
        func path(_ name: String) -> String { directory.appendingPathComponent("\(name).sqlite").path }
        var slots = try (0..<4).map { Slot(device: try open("d\($0)", space: $0 % 2), space: $0 % 2) }
        // Per space: the unique rows ("u…", never deleted) some device saw acknowledged there.
        var acknowledged: [Set<String>] = [[], []]

        /// Closes the slot's database (checkpointed: the file alone holds everything).
        func close(_ slot: Slot) throws { try slot.device.database.close() }

        for step in 0..<Self.steps {
            let index = Int.random(in: 0..<slots.count, using: &random)
            let device = slots[index].device
            let parent = "p\(Int.random(in: 0..<5, using: &random))"
            let child = "c\(Int.random(in: 0..<8, using: &random))"
            let unique = "u\(step)"
            // Every step writes a row of its own, and sometimes conflicting edits.
            try await device.write { db in
                try db.execute(sql: "INSERT INTO parent (id, position, name) VALUES (?, ?, ?)", arguments: [unique, step, "unique \(step)"])
            }
            switch Int.random(in: 0..<5, using: &random) {
            case 0:
                try await device.write { db in
                    try db.execute(sql: "INSERT INTO parent (id, position, name) VALUES (?, 0, ?) ON CONFLICT(id) DO UPDATE SET name = excluded.name",
                                   arguments: [parent, "s\(step)"])
                }
            case 1:
                try await device.write { db in
                    try db.execute(sql: "INSERT INTO parent (id, position, name) VALUES (?, 0, ?) ON CONFLICT(id) DO NOTHING", arguments: [parent, "s\(step)"])
                    try db.execute(sql: "INSERT INTO child (id, position, parentId, text) VALUES (?, 0, ?, ?) ON CONFLICT(id) DO UPDATE SET text = excluded.text",
                                   arguments: [child, parent, "s\(step)"])
                }
            case 2:
                try await device.write { db in try db.execute(sql: "DELETE FROM parent WHERE id = ?", arguments: [parent]) }
            default:
                break
            }
            switch Int.random(in: 0..<10, using: &random) {
            case 0:   // copy another device's file over this one (`cp a.sqlite b.sqlite`): it takes that device's space
                let source = (index + Int.random(in: 1..<slots.count, using: &random)) % slots.count
                try close(slots[index])
                try close(slots[source])
                try? FileManager.default.removeItem(atPath: path("d\(index)"))
                try FileManager.default.copyItem(atPath: path("d\(source)"), toPath: path("d\(index)"))
                slots[source].device = try open("d\(source)", space: slots[source].space)
                slots[index].space = slots[source].space
                slots[index].device = try open("d\(index)", space: slots[index].space)
            case 1:   // take a backup of this file
                try close(slots[index])
                let backup = path("backup\(index)")
                try? FileManager.default.removeItem(atPath: backup)
                try FileManager.default.copyItem(atPath: path("d\(index)"), toPath: backup)
                slots[index].backup = (backup, slots[index].space)
                slots[index].device = try open("d\(index)", space: slots[index].space)
            case 2:   // restore the backup (with the token it had then)
                if let backup = slots[index].backup {
                    try close(slots[index])
                    try FileManager.default.removeItem(atPath: path("d\(index)"))
                    try FileManager.default.copyItem(atPath: backup.path, toPath: path("d\(index)"))
                    slots[index].space = backup.space
                    slots[index].device = try open("d\(index)", space: backup.space)
                }
            case 3:   // another space's token for this file
                try close(slots[index])
                slots[index].space = 1 - slots[index].space
                slots[index].device = try open("d\(index)", space: slots[index].space)
            default:
                break
            }
            if Int.random(in: 0..<2, using: &random) == 0 {
                let slot = slots[index]
                let report = try await slot.device.client.sync()
                #expect(report.pending == 0, "seed \(seed) step \(step): d\(index) still has \(report.pending) pending")
                if report.pending == 0 {
                    acknowledged[slot.space].formUnion(try await uniqueRows(slot.device))
                }
            }
        }

        // Everyone syncs until a full pass changes nothing.
        var quiet = false
        for _ in 0..<12 where !quiet {
            quiet = true
            for slot in slots {
                let report = try await slot.device.client.sync()
                if report.pushed > 0 || report.pulled > 0 || report.rebased || report.reidentified { quiet = false }
                #expect(report.pending == 0, "seed \(seed): \(slot.device.name): \(report)")
                acknowledged[slot.space].formUnion(try await uniqueRows(slot.device))
            }
        }
        #expect(quiet, "seed \(seed): still changing after 12 passes")
        for space in 0..<2 {
            let snapshot = try await serverSnapshot(server: server.url, token: tokens[space])
            let missing = acknowledged[space].subtracting((snapshot["parent"] ?? [:]).keys)
            #expect(missing.isEmpty, "seed \(seed): space \(space) lost acknowledged rows \(missing.sorted())")
            for slot in slots where slot.space == space {
                let local = try await slot.device.snapshot()
                #expect(local == snapshot, "seed \(seed): \(slot.device.name) differs from space \(space)'s server")
            }
        }
        for slot in slots { try close(slot) }
        await server.stop()
    }

    /// The device's unique rows, as snapshot keys.
    private func uniqueRows(_ device: Device) async throws -> Set<String> {
        Set(try await device.snapshot()["parent", default: [:]].keys.filter { $0.hasPrefix("t:u") })
    }
}
