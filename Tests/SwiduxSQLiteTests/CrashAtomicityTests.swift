import Foundation
import GRDB
import SwiduxSQLite
import SwiduxTestSupport
import Testing

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Kills a writer process (`swidux-crash-writer`, built with the tests) at random
/// moments and checks that the database always holds the state of one completed
/// flush — never half of one — and at least the last flush the writer reported.
///
/// Rounds: `SWIDUX_CRASH_ROUNDS` (default 5). The child's path can be forced with
/// `SWIDUX_CRASH_WRITER`.
@Suite("Atomicity: SIGKILL during flushes")
struct CrashAtomicityTests {
    /// Mirrors `Sources/SwiduxCrashWriter/main.swift`.
    struct CrashRow: Codable, Identifiable, Equatable, Sendable {
        var id: Int
        var flush: Int
        var payload: String
    }
    static func countA(_ n: Int) -> Int { n == 0 ? 0 : 200 + (n &* 7919) % 300 }
    static func countB(_ n: Int) -> Int { n == 0 ? 0 : 50 + (n &* 104_729) % 100 }
    static let tableA = EntityTable<CrashRow>(named: "a")
    static let tableB = EntityTable<CrashRow>(named: "b")
    static let migrations = SwiduxMigrations { m in
        m.register("v1") { db in
            try db.createEntityTable(CrashAtomicityTests.tableA)
            try db.createEntityTable(CrashAtomicityTests.tableB)
        }
    }

    static var rounds: Int {
        ProcessInfo.processInfo.environment["SWIDUX_CRASH_ROUNDS"].flatMap(Int.init) ?? 5
    }

    /// The crash writer next to the running test binary (SwiftPM's build products directory).
    static func crashWriterPath() throws -> String {
        if let forced = ProcessInfo.processInfo.environment["SWIDUX_CRASH_WRITER"] { return forced }
        var candidates: [URL] = []
        if let exe = try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe") {
            candidates.append(URL(fileURLWithPath: exe))
        }
        if let main = Bundle.main.executableURL { candidates.append(main) }
        candidates.append(URL(fileURLWithPath: CommandLine.arguments[0]))
        for candidate in candidates {
            // …/debug/SwiduxPackageTests.xctest (Linux) or …/debug/SwiduxPackageTests.xctest/Contents/MacOS/… (macOS)
            var directory = candidate.deletingLastPathComponent()
            for _ in 0..<4 {
                let path = directory.appending(path: "swidux-crash-writer").path
                if FileManager.default.isExecutableFile(atPath: path) { return path }
                directory = directory.deletingLastPathComponent()
            }
        }
        throw CrashWriterNotFound(searched: candidates.map(\.path))
    }

    struct CrashWriterNotFound: Error, CustomStringConvertible {
        let searched: [String]
        var description: String {
            "swidux-crash-writer not found next to \(searched); run `swift build` first or set SWIDUX_CRASH_WRITER"
        }
    }

    /// The last flush number the child reported as committed.
    static func lastReportedFlush(_ progressPath: String) -> Int {
        guard let data = FileManager.default.contents(atPath: progressPath) else { return 0 }
        let text = String(decoding: data, as: UTF8.self)
        // Only complete lines: the last one may have been cut by the kill.
        let lines = text.split(separator: "\n", omittingEmptySubsequences: true)
        let complete = text.hasSuffix("\n") ? lines : lines.dropLast()
        return complete.last.flatMap { Int($0) } ?? 0
    }

    /// Checks that `rows` are exactly flush `n`'s: count, flush number, order.
    static func expectFlushState(_ rows: [CrashRow], flush n: Int, count: Int, table: String, round: Int) {
        let ids = rows.map(\.id)
        let expected = n % 2 == 0 ? Array(0..<count) : Array((0..<count).reversed())
        let matches = ids == expected
        #expect(matches, "round \(round): table \(table) holds \(ids.count) rows starting \(ids.prefix(3)), not flush \(n)'s \(expected.count) rows starting \(expected.prefix(3))")
        #expect(rows.allSatisfy { $0.flush == n }, "round \(round): table \(table) mixes flushes: \(Set(rows.map(\.flush)))")
    }

    @Test("After each SIGKILL the file is sound and holds exactly one completed flush")
    func killedWriterLeavesACompletedFlush() async throws {
        let writer = try Self.crashWriterPath()
        let directory = try TemporaryDirectory()
        let databasePath = directory.path("crash.sqlite")
        let progressPath = directory.path("progress.txt")
        var rng = SeededGenerator(seed: UInt64(Date().timeIntervalSince1970))
        var previousFlush = 0

        for round in 1...Self.rounds {
            try? FileManager.default.removeItem(atPath: progressPath)
            let errors = directory.path("writer-\(round).err")
            let process = try await ChildProcess.start([writer, databasePath, progressPath], output: "/dev/null", error: errors)

            // Wait (bounded) for the first committed flush, then let it run a random while.
            let deadline = ContinuousClock.now + .seconds(30)
            while Self.lastReportedFlush(progressPath) == 0, !process.hasEnded, ContinuousClock.now < deadline {
                try await Task.sleep(for: .milliseconds(5))
            }
            #expect(!process.hasEnded, "round \(round): writer exited: \(fileBytes(errors).map { String(decoding: $0, as: UTF8.self) } ?? "")")
            try await Task.sleep(for: .milliseconds(Int.random(in: 0...150, using: &rng)))
            process.send(SIGKILL)
            #expect(try await process.wait() == 128 + SIGKILL, "round \(round)")
            let reported = Self.lastReportedFlush(progressPath)

            let database = try SwiduxDatabase(path: databasePath, migrations: Self.migrations)
            let integrity = try await database.writer.read { db in try String.fetchAll(db, sql: "PRAGMA integrity_check") }
            #expect(integrity == ["ok"], "round \(round)")
            let (a, b) = try await database.hydrateAll(Self.tableA, Self.tableB)
            let n = a.first?.flush ?? 0
            Self.expectFlushState(a.values, flush: n, count: Self.countA(n), table: "a", round: round)
            Self.expectFlushState(b.values, flush: n, count: Self.countB(n), table: "b", round: round)
            // Durable: every flush reported committed is there; at most the one in flight beyond.
            #expect(n == reported || n == reported + 1, "round \(round): stored flush \(n), last reported \(reported)")
            #expect(n >= previousFlush, "round \(round)")
            previousFlush = n
            try database.close()
        }
        #expect(previousFlush > 0)
    }

    /// Whether process `pid` still runs (a zombie does not: nobody may reap it in a container).
    static func isRunning(_ pid: pid_t) -> Bool {
        #if os(Linux)
        guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
              let close = stat.lastIndex(of: ")") else { return false }
        return !stat[close...].dropFirst().trimmingCharacters(in: .whitespaces).hasPrefix("Z")
        #else
        return kill(pid, 0) == 0
        #endif
    }

    @Test("A writer whose test process died stops by itself instead of writing forever")
    func orphanedWriterExits() async throws {
        let writer = try Self.crashWriterPath()
        let directory = try TemporaryDirectory()
        let progressPath = directory.path("progress.txt")
        // A shell stands in for the test runner: it starts the writer in the background,
        // prints its pid, and waits until the test kills it, like an interrupted `swift test`.
        let printed = directory.path("shell.out")
        let shell = try await ChildProcess.start([
            "/bin/sh", "-c", #""$0" "$1" "$2" </dev/null >/dev/null 2>&1 & echo $!; exec sleep 600"#,
            writer, directory.path("orphan.sqlite"), progressPath,
        ], output: printed)
        defer { shell.send(SIGKILL) }   // its `sleep`, if the test stops early
        var line = ""
        let printedBy = ContinuousClock.now + .seconds(30)
        while !line.contains("\n"), ContinuousClock.now < printedBy {
            try await Task.sleep(for: .milliseconds(5))
            line = fileBytes(printed).map { String(decoding: $0, as: UTF8.self) } ?? ""
        }
        let pid = try #require(pid_t(line.trimmingCharacters(in: .whitespacesAndNewlines)))
        defer { kill(pid, SIGKILL) }   // never leave it behind, even when the test fails

        // Orphan the writer once it is in its flush loop.
        var deadline = ContinuousClock.now + .seconds(60)
        while Self.lastReportedFlush(progressPath) == 0, Self.isRunning(pid), ContinuousClock.now < deadline {
            try await Task.sleep(for: .milliseconds(10))
        }
        #expect(Self.lastReportedFlush(progressPath) > 0, "the writer never committed a flush")
        // The writer is re-parented as soon as the shell dies.
        shell.send(SIGKILL)
        _ = try await shell.wait()

        deadline = ContinuousClock.now + .seconds(60)
        while Self.isRunning(pid), ContinuousClock.now < deadline {
            try await Task.sleep(for: .milliseconds(10))
        }
        #expect(!Self.isRunning(pid), "the orphaned writer \(pid) still runs")
    }
}
