import Foundation
import Testing
@testable import Swidux

@MainActor
@Suite("Recordings a crash cut short", .timeLimit(.minutes(1)))
struct CutRecordingTests {
    /// A recording of five steps; its lines.
    func record() async throws -> URL {
        let file = try temporaryFolder().appendingPathComponent("session.jsonl")
        let recorder = try SessionRecorder<Shelf, ShelfAction>(file: file)
        let store = Store(initialState: Shelf(), reducer: ShelfReducer(), environment: (), middleware: [recorder])
        for id in 0..<4 { store.send(.add(id, "Book \(id)")) }
        store.send(.markRead(2))
        try await recorder.flush()
        return file
    }

    @Test("A last line cut mid-write: the complete steps are read and replay; the cut line is named as a warning")
    func cutLastLine() async throws {
        let file = try await record()
        let text = try String(contentsOf: file, encoding: .utf8)
        for cut in [2, 10, 30] {
            // Whatever the last line kept (its newline gone), it is not a whole line.
            try Data(text.utf8.dropLast(cut)).write(to: file)
            let recording = try SessionRecording<ShelfAction>(contentsOf: file)
            #expect(recording.steps.count == 4, "cut \(cut)")
            #expect(recording.warnings.count == 1)
            let warning = try #require(recording.warnings.first)
            #expect(warning.line == 6)
            #expect(warning.path == file.path)
            #expect(warning.description.contains("session.jsonl, line 6: is cut short"), "\(warning)")
            #expect(warning.description.contains("the 4 steps before it are read"))

            let replay = Store(initialState: Shelf(), reducer: ShelfReducer().ignoringEffects(), environment: ())
            let replayer = try SessionReplayer(recording: recording, store: replay, fingerprint: Shelf.sessionFingerprint)
            var replayed = 0
            while let step = try replayer.next() {
                #expect(step.matches)
                replayed += 1
            }
            #expect(replayed == 4)
            #expect(replay.state.books.count == 4)
        }
    }

    @Test("A complete recording has no warning")
    func completeRecording() async throws {
        let recording = try SessionRecording<ShelfAction>(contentsOf: try await record())
        #expect(recording.steps.count == 5)
        #expect(recording.warnings.isEmpty)
    }

    @Test("A damaged line in the middle is still an error naming its line")
    func damagedMiddleLine() async throws {
        let file = try await record()
        var lines = try lines(of: file)
        lines[2] = String(lines[2].prefix(20))
        try (lines.joined(separator: "\n") + "\n").write(to: file, atomically: true, encoding: .utf8)
        do {
            _ = try SessionRecording<ShelfAction>(contentsOf: file)
            Issue.record("expected an error")
        } catch let error as SessionRecordingError {
            #expect(error.line == 3)
            #expect(error.description.contains("session.jsonl, line 3: does not decode"))
        }
    }

    @Test("A last line that is whole JSON but not a step is still an error")
    func wrongLastLine() async throws {
        let file = try await record()
        let text = try String(contentsOf: file, encoding: .utf8)
        try (text + #"{"s":"ui","t":1,"a":{"fly":{}},"f":"0.0"}"# + "\n").write(to: file, atomically: true, encoding: .utf8)
        #expect(throws: SessionRecordingError.self) { try SessionRecording<ShelfAction>(contentsOf: file) }
    }
}
