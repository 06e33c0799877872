import Foundation
import SwiduxTesting
import Testing
@testable import TodosApp

/// The recorded session kept in the repository (`Fixtures/session.jsonl`, made with
/// `todos --record` in a terminal: items added, toggled, moved, deleted, undone and redone,
/// a search (whose debounced effect sent an action), a tag, filters, and an item another
/// process added while the UI was open) replays with the app's reducer.
@MainActor
@Suite(.timeLimit(.minutes(1))) struct RecordedSessionTests {
    static let fixture = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .appendingPathComponent("Fixtures/session.jsonl")

    @Test("The fixture replays with TestStore: every step's state fingerprint matches the recording")
    func fixtureReplays() async throws {
        let recording = try SessionRecording<AppAction>(contentsOf: Self.fixture)
        let sources = Set(recording.steps.map(\.source))
        #expect(sources == [.ui, .effect, .external])
        let values = SessionValues()
        let store = try await TestStore(
            replaying: Self.fixture, initialState: AppState(), reducer: AppReducer(),
            environment: AppEnvironment(uuid: values.uuid, now: values.now),
            values: values, undo: TodoApp.makeUndo())
        #expect(store.replayedSteps == recording.steps.count)
        #expect(store.state.items.values.map(\.title).sorted() == ["Buy milk", "Call mom", "From another process", "Write report"])
    }

    @Test("`todos replay FILE` prints each step's action and state difference and exits 0")
    func replayCommandPrintsSteps() async throws {
        let sandbox = try Sandbox()
        let result = try await sandbox.run("replay", Self.fixture.path)
        #expect(result.status == 0, "\(result.stderr)")
        let recording = try SessionRecording<AppAction>(contentsOf: Self.fixture)
        #expect(result.stdout.contains("step 0  ui  "))
        #expect(result.stdout.contains("step \(recording.steps.count - 1)  "))
        #expect(result.stdout.contains("AppAction.items(.add("))
        #expect(result.stdout.contains(".isDone: false → true"))
        #expect(result.stdout.contains("external changes from sqlite:"))
        #expect(result.stdout.hasSuffix("✓ session.jsonl: \(recording.steps.count) steps replayed; every state matches the recording\n"))
        // What changed, not the state tree: a typed character is one line.
        let stepLines = result.stdout.split(separator: "\n").count
        #expect(stepLines < recording.steps.count * 4, "\(stepLines) lines for \(recording.steps.count) steps")
        #expect(result.stdout.contains("~ ui.draft: "))

        let full = try await sandbox.run("replay", "--full-state", Self.fixture.path)
        #expect(full.status == 0, "\(full.stderr)")
        #expect(full.stdout.contains("+       isDone: true,") || full.stdout.contains("+     isDone: true,"))
        #expect(full.stdout.split(separator: "\n").count > stepLines)
    }

    @Test("`todos replay` of a recording whose step differs exits 1 naming the step and the part")
    func replayCommandFindsTheStep() async throws {
        let sandbox = try Sandbox()
        var lines = try String(contentsOf: Self.fixture, encoding: .utf8).split(separator: "\n").map(String.init)
        // Step 12 (line 14): change the recorded fingerprint of `items` after it.
        let index = 13
        var fields = try #require(try JSONSerialization.jsonObject(with: Data(lines[index].utf8)) as? [String: Any])
        var prints = try #require(fields["f"] as? String).split(separator: ".").map(String.init)
        prints[2] = prints[2] == "00000000" ? "00000001" : "00000000"
        fields["f"] = prints.joined(separator: ".")
        lines[index] = String(decoding: try JSONSerialization.data(withJSONObject: fields), as: UTF8.self)
        let file = sandbox.directory.appendingPathComponent("edited.jsonl")
        try (lines.joined(separator: "\n") + "\n").write(to: file, atomically: true, encoding: .utf8)
        let result = try await sandbox.run("replay", file.path)
        #expect(result.status == 1)
        #expect(result.stdout.contains("✗ differs from the recording: items"))
        #expect(result.stdout.contains("✗ edited.jsonl: step 12 of "))
        #expect(!result.stdout.contains("step 13  "))   // stops at the step that differs
    }

    @Test("`todos replay` of a file that is not a recording names it and fails")
    func replayCommandBadFile() async throws {
        let sandbox = try Sandbox()
        let file = sandbox.directory.appendingPathComponent("notes.txt")
        try "hello\n".write(to: file, atomically: true, encoding: .utf8)
        let result = try await sandbox.run("replay", file.path)
        #expect(result.status != 0)
        #expect(result.stderr.contains("notes.txt, line 1: is not a Swidux session recording"))
    }

    @Test("The interactive view: arrow keys move through the steps; the frame shows the app after the step")
    func timeTravelFrames() throws {
        let session = try ReplayedSession(file: Self.fixture)
        #expect(ReplayViewer.move(.right, from: 0, last: 5) == 1)
        #expect(ReplayViewer.move(.left, from: 0, last: 5) == 0)
        #expect(ReplayViewer.move(.end, from: 0, last: 5) == 5)
        #expect(ReplayViewer.move(.character("q"), from: 2, last: 5) == nil)
        let size = TerminalIO.Size(columns: 100, rows: 40)
        let start = ReplayViewer.frame(session, position: 0, size: size).joined(separator: "\n")
        let end = ReplayViewer.frame(session, position: session.steps.count, size: size).joined(separator: "\n")
        #expect(start.contains("start of the recording"))
        #expect(!start.contains("Buy milk"))
        #expect(end.contains("replay \(session.steps.count)/\(session.steps.count)"))
        #expect(end.contains("step \(session.steps.count - 1)  "))
    }
}
