import Foundation
import SwiduxSQLite

// Issue 30 item 4: the main actor's longest stall while an app launches on a database of
// 100,000 rows (LAUNCH_ROWS), the synchronous path (`SwiduxDatabase(path:)` +
// `persistence(hydrating:)` on the main actor, with `quick_check` on every open) against
// the asynchronous one (`SwiduxDatabase.open` + `persistence(hydratingInBackground:)`,
// integrity check after an unclean shutdown only), alternated in one run.
//
//     swift run -c release LaunchStall
//
// A heartbeat on the main actor wakes every millisecond; the longest gap between two beats
// while the launch runs is the stall (what a user sees as a frozen launch screen).

struct Row: Codable, Identifiable, Equatable, Sendable {
    var id: Int
    var title: String
    var done: Bool
    var notes: String
}

struct LaunchState { var rows = EntityStore<Row>() }

enum LaunchSchema {
    static let rows = EntityTable<Row>(named: "row")
    static let migrations = SwiduxMigrations { m in
        m.register("v1") { db in try db.createEntityTable(rows) }
    }
}

/// The longest gap between main-actor heartbeats while `work` runs.
@MainActor
final class Heartbeat {
    private var last = ContinuousClock.now
    private(set) var longest: Duration = .zero
    private var running = true

    func measure(_ work: () async throws -> Void) async rethrows -> (stall: Duration, total: Duration) {
        last = .now
        longest = .zero
        running = true
        let beats = Task { @MainActor in
            while self.running {
                let now = ContinuousClock.now
                self.longest = max(self.longest, now - self.last)
                self.last = now
                try? await Task.sleep(for: .milliseconds(1))
            }
        }
        await Task.yield()
        let start = ContinuousClock.now
        try await work()
        let total = ContinuousClock.now - start
        // One more beat after the work, so that a stall at its end is counted.
        try? await Task.sleep(for: .milliseconds(5))
        running = false
        await beats.value
        return (longest, total)
    }
}

@main
enum LaunchStall {
    @MainActor
    static func main() async throws {
        let count = Int(ProcessInfo.processInfo.environment["LAUNCH_ROWS"] ?? "") ?? 100_000
        let rounds = Int(ProcessInfo.processInfo.environment["LAUNCH_ROUNDS"] ?? "") ?? 3
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("swidux-launch-\(UUID())")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let path = directory.appendingPathComponent("app.sqlite").path
        do {
            let database = try SwiduxDatabase(path: path, migrations: LaunchSchema.migrations)
            let rows = (0..<count).map { Row(id: $0, title: "Item \($0)", done: $0 % 3 == 0, notes: String(repeating: "n", count: 40)) }
            try await database.performAtomically([{ db in try LaunchSchema.rows.write(WriteBatch(writes: rows), in: db) }])
            try database.close()
        }
        let size = (try? FileManager.default.attributesOfItem(atPath: path)[.size] as? Int) ?? 0
        print("rows: \(count), file: \(size / 1024) KiB, rounds: \(rounds)")
        let heartbeat = Heartbeat()
        for round in 1...rounds {
            let before = try await heartbeat.measure {
                let database = try SwiduxDatabase(path: path, migrations: LaunchSchema.migrations)
                var state = LaunchState()
                _ = try database.persistence(hydrating: &state, [.entities(\.rows, in: LaunchSchema.rows)])
                precondition(state.rows.count == count)
                try database.close()
            }
            let after = try await heartbeat.measure {
                let database = try await SwiduxDatabase.open(path: path, migrations: LaunchSchema.migrations)
                var state = LaunchState()
                _ = try await database.persistence(hydratingInBackground: &state, [.entities(\.rows, in: LaunchSchema.rows)])
                precondition(state.rows.count == count)
                try database.close()
            }
            print("round \(round): synchronous (before): longest main-actor stall \(ms(before.stall)) of \(ms(before.total)) launch; "
                  + "async (after): \(ms(after.stall)) of \(ms(after.total)); ratio \(String(format: "%.1f", before.stall / after.stall))×")
        }
    }

    static func ms(_ duration: Duration) -> String {
        String(format: "%.1f ms", Double(duration.components.attoseconds) / 1e15 + Double(duration.components.seconds) * 1000)
    }
}
