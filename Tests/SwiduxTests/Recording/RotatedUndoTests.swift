import Foundation
import Testing
@testable import Swidux

@MainActor
@Suite("Rotated files with undo and redo", .timeLimit(.minutes(1)))
struct RotatedUndoTests {
    static func undo() -> UndoMiddleware<Shelf> { UndoMiddleware(maxDepth: 30, recording: \.books, \.note) }

    /// The recording's files, newest first.
    func files(of file: URL) -> [URL] {
        [file] + (1...5).map { URL(fileURLWithPath: file.path + ".\($0)") }
            .filter { FileManager.default.fileExists(atPath: $0.path) }
    }

    /// Replays `url` alone into a store with an empty history; the steps that differ.
    func replayAlone(_ url: URL, undo: UndoMiddleware<Shelf>? = RotatedUndoTests.undo()) throws -> (steps: Int, differing: [String]) {
        let recording = try SessionRecording<ShelfAction>(contentsOf: url)
        let replay = Store(initialState: Shelf(), reducer: ShelfReducer().ignoringEffects(), environment: (), undo: undo)
        let replayer = try SessionReplayer(recording: recording, store: replay, fingerprint: Shelf.sessionFingerprint)
        var steps = 0, differing: [String] = []
        if !replayer.initialDifferences.isEmpty { differing.append("start: \(replayer.initialDifferences)") }
        while let step = try replayer.next() {
            steps += 1
            if !step.matches { differing.append("\(url.lastPathComponent) step \(step.step.index) (\(step.step.event)): \(step.differingParts)") }
        }
        return (steps, differing)
    }

    @Test("With snapshots, every rotated file replays alone, also when it starts with undos and redos of steps made before it")
    func filesStartingWithUndo() async throws {
        let file = try temporaryFolder().appendingPathComponent("session.jsonl")
        let recorder = try SessionRecorder<Shelf, ShelfAction>(file: file, maxFileSize: 4096, keptFiles: 4, snapshot: true)
        let store = Store(initialState: Shelf(), reducer: ShelfReducer(), environment: (), middleware: [recorder],
                          undo: Self.undo())
        for id in 0..<25 { store.send(.add(id, "Book number \(id)")) }
        try await recorder.flush()
        // Long runs of undo and redo over steps of earlier files, mixed with new steps (which
        // clear redo) and a full history (its oldest steps dropped).
        for round in 0..<12 {
            for _ in 0..<(4 + round % 5) { store.undo() }
            store.send(.markRead(round % 7))
            for _ in 0..<3 { store.undo() }
            for _ in 0..<(2 + round % 3) { store.redo() }
            store.send(.note("round \(round)"))
            store.send(.remove(20 + round % 5))
            store.undo()
            store.redo()
            store.undo()
            try await recorder.flush()
        }
        try await recorder.flush()

        let urls = files(of: file)
        #expect(urls.count == 5, "\(urls.count - 1) rotations kept")
        var startsInHistory = 0
        for url in urls {
            let recording = try SessionRecording<ShelfAction>(contentsOf: url)
            switch recording.steps.first?.event {
            case .undo?, .redo?: startsInHistory += 1
            default: break
            }
            let result = try replayAlone(url)
            #expect(result.differing.isEmpty, "\(result.differing)")
            #expect(result.steps == recording.steps.count)
            // Without an undo history at all, the recorded changes replay every undo and redo.
            #expect(try replayAlone(url, undo: nil).differing.isEmpty)
        }
        #expect(startsInHistory >= 1, "no kept file starts with an undo or a redo")
    }

    @Test("An undo that puts back a deleted entity, and one that puts back an order, replay from a file alone")
    func placesAndOrder() async throws {
        let file = try temporaryFolder().appendingPathComponent("session.jsonl")
        let recorder = try SessionRecorder<Shelf, ShelfAction>(file: file, snapshot: true)
        let store = Store(initialState: Shelf(books: EntityStore((0..<6).map { Book(id: $0, title: "b\($0)") })),
                          reducer: ShelfReducer(), environment: (), middleware: [recorder], undo: Self.undo())
        store.send(.remove(2))
        store.send(.remove(4))
        store.undo()
        store.undo()
        store.redo()
        store.send(.reverse)
        store.undo()
        store.redo()
        store.undo()
        try await recorder.flush()
        // The first file replayed into a store whose history is empty: every undo and redo
        // comes from the recorded changes, entities back at their places.
        let result = try replayAlone(file, undo: nil)
        #expect(result.differing.isEmpty, "\(result.differing)")
        #expect(result.steps == 9)
    }
}
