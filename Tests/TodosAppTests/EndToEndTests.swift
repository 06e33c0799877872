import Foundation
import SwiduxTestSupport
import Testing
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Tests that drive the real `todos` executable block a thread while they wait for it;
/// they run one at a time so that the other tests keep the (small) cooperative pool.
@Suite(.serialized) enum ProcessTests {}

/// Drives the real `todos` executable (built next to the tests) through its scriptable surface.
extension ProcessTests { @Suite struct EndToEndTests {
    @Test func addThenListAcrossRuns() async throws {
        let box = try Sandbox()
        let first = try await box.run("add", "Buy milk", "--tag", "shop", "--tag", "food")
        #expect(first.status == 0, "\(first.stderr)")
        let id = first.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        #expect(UUID(uuidString: id) != nil)
        #expect(try await box.run("add", "Plan sprint 🗓", "--list", "Work").status == 0)
        #expect(try await box.run("add", "日本語のタスク", "--db", box.database, "--list", "work").status == 0)

        // A new process reads what the previous ones wrote.
        let items = try await box.listJSON()
        #expect(items.map(\.title) == ["Buy milk", "Plan sprint 🗓", "日本語のタスク"])
        #expect(items[0] == ItemRecord(id: id, title: "Buy milk", list: "Inbox", done: false, tags: ["shop", "food"]))
        #expect(items[1].list == "Work" && items[2].list == "Work")
        #expect(try await box.listJSON("--list", "Work").count == 2)

        let text = try await box.run("list")
        #expect(text.stdout.contains("[ ] Buy milk  #shop #food  (Inbox)"))
    }

    @Test func doneAndRemove() async throws {
        let box = try Sandbox()
        let a = try await box.run("add", "First").stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        let b = try await box.run("add", "Second").stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        #expect(try await box.run("done", a).status == 0)
        #expect(try await box.run("rm", String(b.prefix(8))).status == 0)   // a unique prefix works
        #expect(try await box.listJSON() == [ItemRecord(id: a, title: "First", list: "Inbox", done: true, tags: [])])
        #expect(try await box.run("done", "--undo", a).status == 0)
        #expect(try await box.listJSON().first?.done == false)
    }

    @Test func errorsGoToStandardErrorWithNonZeroStatus() async throws {
        let box = try Sandbox()
        for arguments in [["done", "ffffffff"], ["rm", "not-an-id"], ["add", "   "], ["list", "--list", "Nope"], ["frobnicate"]] {
            let result = try await box.run(arguments: arguments)
            #expect(result.status != 0, "\(arguments)")
            #expect(!result.stderr.isEmpty, "\(arguments)")
            #expect(result.stdout.isEmpty, "\(arguments)")
        }
        // No terminal: the UI refuses with a clear message instead of garbling the output.
        let ui = try await box.run()
        #expect(ui.status != 0 && ui.stderr.contains("terminal"))
    }

    @Test func unopenableDatabaseIsReportedAndLeftAlone() async throws {
        let box = try Sandbox()
        let garbage = Data((0..<4096).map { UInt8(truncatingIfNeeded: $0 &* 31) })
        try garbage.write(to: URL(fileURLWithPath: box.database))
        let result = try await box.run("list")
        #expect(result.status != 0)
        #expect(result.stderr.contains(box.database))
        #expect(try Data(contentsOf: URL(fileURLWithPath: box.database)) == garbage)
        #expect(!FileManager.default.fileExists(atPath: box.database + "-wal"))

        let directory = box.directory.appendingPathComponent("dir.sqlite")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let dirResult = try await box.run("list", "--db", directory.path)
        #expect(dirResult.status != 0 && dirResult.stderr.contains("dir.sqlite"))
    }

    /// kill -9 in the middle of rapid edits: the file opens, passes the integrity check, and
    /// holds a consistent prefix of the edits (a completed flush, never half of one).
    @Test func sigkillDuringRapidEditsNeverCorrupts() async throws {
        let box = try Sandbox()
        var previousRounds: [Int] = []
        for round in 0..<2 {
            let output = box.directory.appendingPathComponent("stress-\(round).out").path
            let process = try await ChildProcess.start(
                [try todosExecutable().path, "stress", "--count", "1000000", "--interval-ms", "1"],
                environment: box.environment, output: output, error: "/dev/null")
            var seen = ""
            let deadline = ContinuousClock.now + .seconds(60)
            while !seen.contains("flushed"), !process.hasEnded, ContinuousClock.now < deadline {
                try await Task.sleep(for: .milliseconds(10))
                seen = box.bytes(output).map { String(decoding: $0, as: UTF8.self) } ?? ""
            }
            #expect(seen.contains("flushed 10"), "round \(round): \(seen)")
            try await Task.sleep(for: .milliseconds(600 + round * 250))   // several debounce windows of edits
            process.send(SIGKILL)
            #expect(try await process.wait() == 128 + SIGKILL)

            let check = try await box.run("check")
            #expect(check.status == 0 && check.stdout == "ok\n", "\(check.stderr)")
            let items = try await box.listJSON("--list", "stress")
            // Each round starts numbering at 0 again: check the prefix property per round.
            let titles = items.map(\.title)
            let count = titles.count
            #expect(count >= 10 * (round + 1))
            var expected: [String] = []
            var done: [Bool] = []
            for r in 0...round {
                let roundItems = r < round ? previousRounds[r] : count - previousRounds.reduce(0, +)
                expected += (0..<roundItems).map { "stress \($0)" }
                done += (0..<roundItems).map { $0 < roundItems - 2 }
            }
            #expect(titles == expected)
            // Everything but the last two of a round was marked done before the kill.
            for (item, mustBeDone) in zip(items, done) where mustBeDone { #expect(item.done, "\(item.title)") }
            previousRounds.append(count - previousRounds.reduce(0, +))
        }
    }
}
}
