import Foundation
import Testing
@testable import TodosApp

@MainActor
@Suite(.timeLimit(.minutes(1))) struct CutRecordingReplayTests {
    @Test("`todos replay` of a recording whose last line a crash cut replays the complete steps and names the cut line")
    func replayCommandWarnsOfTheCut() async throws {
        let sandbox = try Sandbox()
        let text = try String(contentsOf: RecordedSessionTests.fixture, encoding: .utf8)
        let lineCount = text.split(separator: "\n").count
        let file = sandbox.directory.appendingPathComponent("crashed.jsonl")
        try Data(text.utf8.dropLast(40)).write(to: file)
        let result = try await sandbox.run("replay", file.path)
        #expect(result.status == 0, "\(result.stdout)\(result.stderr)")
        #expect(result.stdout.contains("crashed.jsonl, line \(lineCount): is cut short"), "\(result.stdout)")
        #expect(result.stdout.contains("\(lineCount - 2) steps replayed"), "\(result.stdout)")
    }
}
