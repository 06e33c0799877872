import Foundation
import Testing
@testable import Swidux

@MainActor
@Suite("Session recorder", .timeLimit(.minutes(1)))
struct SessionRecorderTests {
    @Test("Every action is written with its source, its time and a fingerprint; effects' actions are marked as such")
    func actionsWithSources() async throws {
        let folder = try temporaryFolder()
        let file = folder.appendingPathComponent("session.jsonl")
        let recorder = try SessionRecorder<Shelf, ShelfAction>(file: file)
        let store = Store(initialState: Shelf(), reducer: ShelfReducer(), environment: (), middleware: [recorder])
        let before = Date()
        store.send(.add(1, "Dune"))
        await store.send(.load).finish()
        store.send(.markRead(1))
        try await recorder.flush()

        let recording = try SessionRecording<ShelfAction>(contentsOf: file)
        #expect(recording.parts == ["books", "note"])
        let events = recording.steps.map { step -> String in
            guard case .action(let action) = step.event else { return "?" }
            return "\(step.source.rawValue) \(action)"
        }
        #expect(events == ["ui add(1, \"Dune\")", "ui load", "effect note(\"loaded\")", "ui markRead(1)"])
        #expect(recording.steps.map(\.index) == [0, 1, 2, 3])
        #expect(recording.steps.allSatisfy { abs($0.time.timeIntervalSince(before)) < 60 })
        // The fingerprint changes with the part that changed, and only with it.
        let prints = recording.steps.map(\.fingerprint)
        #expect(prints.allSatisfy { $0.count == 2 })
        #expect(prints[0][0] != recording.initialFingerprint?[0])
        #expect(prints[1] == prints[0])            // .load changed nothing
        #expect(prints[2][0] == prints[1][0] && prints[2][1] != prints[1][1])
        #expect(prints[3][0] != prints[2][0] && prints[3][1] == prints[2][1])
        #expect(recorder.stepCount == 4)
    }

    @Test("Undo, redo and external changes are steps too, with their source and the external entities")
    func undoRedoExternal() async throws {
        let folder = try temporaryFolder()
        let file = folder.appendingPathComponent("session.jsonl")
        let table = MemoryTable<Book>(name: "books")
        let recorder = try SessionRecorder<Shelf, ShelfAction>(file: file)
        let store = Store(
            initialState: Shelf(), reducer: ShelfReducer(), environment: (), middleware: [recorder],
            persistence: PersistenceMiddleware(writers: [table.writer(\Shelf.books)]),
            undo: UndoMiddleware(recording: \.books))
        store.send(.add(1, "Dune"))
        store.undo()
        store.redo()
        var changes = ExternalChanges<Shelf>(origin: "sync")
        changes.upsert(Book(id: 2, title: "Emma"), in: \.books)
        changes.delete(1, in: \.books)
        store.applyExternalChanges(changes)
        var other = ExternalChanges<Shelf>(origin: "sqlite:/tmp/x")
        other.upsert(Book(id: 3, title: "Ulysses"), in: \.books)
        store.applyExternalChanges(other)
        try await recorder.flush()

        let steps = try SessionRecording<ShelfAction>(contentsOf: file).steps
        #expect(steps.count == 5)
        guard steps.count == 5 else { return }
        guard case .undo = steps[1].event, case .redo = steps[2].event else {
            Issue.record("expected undo then redo, got \(steps[1].event), \(steps[2].event)")
            return
        }
        guard case .external(let origin, let recorded) = steps[3].event else {
            Issue.record("expected external changes, got \(steps[3].event)")
            return
        }
        #expect(origin == "sync")
        #expect(steps[3].source == .sync)
        #expect(steps[4].source == .external)
        let payload = try #require(recorded["books"])
        #expect(payload.contains("Emma"))
        #expect(!payload.contains("Dune"))
        // Redo brings back the state after the add: the same fingerprint; the others differ.
        let books = steps.map(\.fingerprint[0])
        #expect(books[2] == books[0])
        #expect(Set([books[0], books[1], books[3], books[4]]).count == 4)
    }

    @Test("The redaction hook runs before anything is written")
    func redaction() async throws {
        let file = try temporaryFolder().appendingPathComponent("session.jsonl")
        let recorder = try SessionRecorder<Shelf, ShelfAction>(file: file, redact: { action in
            if case .password = action { return .password("•••") }
            return action
        })
        let store = Store(initialState: Shelf(), reducer: ShelfReducer(), environment: (), middleware: [recorder])
        store.send(.password("hunter2"))
        try await recorder.flush()
        let text = try String(contentsOf: file, encoding: .utf8)
        #expect(!text.contains("hunter2"))
        #expect(text.contains("•••"))
    }

    @Test("The file rotates at its size limit: the full file becomes FILE.1, the new one starts with a header")
    func rotation() async throws {
        let folder = try temporaryFolder()
        let file = folder.appendingPathComponent("session.jsonl")
        try "an older recording\n".write(to: file, atomically: true, encoding: .utf8)
        let recorder = try SessionRecorder<Shelf, ShelfAction>(file: file, maxFileSize: 4096, keptFiles: 2)
        let store = Store(initialState: Shelf(), reducer: ShelfReducer(), environment: (), middleware: [recorder])
        for index in 0..<200 { store.send(.add(index, "Book number \(index)")) }
        try await recorder.flush()

        let manager = FileManager.default
        // The existing file was rotated away, not overwritten; the oldest beyond 2 is gone.
        #expect(manager.fileExists(atPath: file.path + ".1"))
        #expect(manager.fileExists(atPath: file.path + ".2"))
        #expect(!manager.fileExists(atPath: file.path + ".3"))
        for url in [file, URL(fileURLWithPath: file.path + ".1")] {
            let size = try #require(try manager.attributesOfItem(atPath: url.path)[.size] as? Int)
            #expect(size <= 4096)
        }
        let current = try SessionRecording<ShelfAction>(contentsOf: file)
        let previous = try SessionRecording<ShelfAction>(contentsOf: URL(fileURLWithPath: file.path + ".1"))
        #expect(current.steps.last?.index == 199)   // 200 steps: 0…199
        #expect(current.steps.first?.index == (previous.steps.last?.index ?? -2) + 1)
        // The new file's header holds the fingerprint the previous file ended with.
        #expect(current.initialFingerprint == previous.steps.last?.fingerprint)
    }

    @Test("A recording that does not decode names the file, the line and the cause")
    func badRecording() throws {
        let file = try temporaryFolder().appendingPathComponent("bad.jsonl")
        try "not json\n".write(to: file, atomically: true, encoding: .utf8)
        #expect(throws: SessionRecordingError.self) { try SessionRecording<ShelfAction>(contentsOf: file) }
        let header = #"{"swidux":"session","version":1,"parts":["books","note"],"seed":"1","first":0,"f":"0.0"}"#
        try (header + "\n" + #"{"s":"ui","t":1,"a":{"fly":{}},"f":"0.0"}"# + "\n").write(to: file, atomically: true, encoding: .utf8)
        do {
            _ = try SessionRecording<ShelfAction>(contentsOf: file)
            Issue.record("expected an error")
        } catch let error as SessionRecordingError {
            #expect(error.line == 2)
            #expect(error.description.contains("bad.jsonl, line 2: does not decode"))
        }
    }

    @Test("With a snapshot, a replay starts from the recorded start whatever its initial state")
    func snapshotStart() async throws {
        let file = try temporaryFolder().appendingPathComponent("session.jsonl")
        let recorder = try SessionRecorder<Shelf, ShelfAction>(file: file, snapshot: true)
        let start = Shelf(books: [Book(id: 7, title: "Kim")], note: "hello")
        let store = Store(initialState: start, reducer: ShelfReducer(), environment: (), middleware: [recorder])
        store.send(.markRead(7))
        try await recorder.flush()

        let recording = try SessionRecording<ShelfAction>(contentsOf: file)
        let replay = Store(initialState: Shelf(), reducer: ShelfReducer().ignoringEffects(), environment: ())
        let replayer = try SessionReplayer(recording: recording, store: replay, fingerprint: Shelf.sessionFingerprint)
        #expect(replayer.initialDifferences.isEmpty)
        #expect(replay.state.note == "hello")
        let step = try #require(try replayer.next())
        #expect(step.matches)
        #expect(replay.state.books[7]?.read == true)
        #expect(try replayer.next() == nil)
    }

    @Test("With a snapshot, every rotated file starts with the state where it starts: each one replays alone")
    func snapshotInEveryRotatedFile() async throws {
        let folder = try temporaryFolder()
        let file = folder.appendingPathComponent("session.jsonl")
        let recorder = try SessionRecorder<Shelf, ShelfAction>(file: file, maxFileSize: 4096, keptFiles: 3, snapshot: true)
        let start = Shelf(books: [Book(id: -1, title: "Kim")], note: "hello")
        let store = Store(initialState: start, reducer: ShelfReducer(), environment: (), middleware: [recorder])
        // Small batches: the writer sees the file full while steps keep coming.
        for index in 0..<120 {
            store.send(.add(index, "Book number \(index)"))
            if index % 7 == 0 { store.send(.markRead(index)) }
            if index % 10 == 9 { try await recorder.flush() }
        }
        try await recorder.flush()

        var files = [file]
        for index in 1...3 where FileManager.default.fileExists(atPath: file.path + ".\(index)") {
            files.append(URL(fileURLWithPath: file.path + ".\(index)"))
        }
        #expect(files.count == 4, "the recording rotated \(files.count - 1) times")
        var replayedSteps = 0
        for url in files {
            let recording = try SessionRecording<ShelfAction>(contentsOf: url)
            #expect(recording.initialSnapshot != nil, "\(url.lastPathComponent) has no snapshot")
            // A replay from an empty shelf: the header's values make up the difference.
            let replay = Store(initialState: Shelf(), reducer: ShelfReducer().ignoringEffects(), environment: ())
            let replayer = try SessionReplayer(recording: recording, store: replay, fingerprint: Shelf.sessionFingerprint)
            #expect(replayer.initialDifferences.isEmpty, "\(url.lastPathComponent): \(replayer.initialDifferences)")
            #expect(replay.state.note == "hello")
            while let step = try replayer.next() {
                #expect(step.matches, "\(url.lastPathComponent) step \(step.step.index): \(step.differingParts)")
                replayedSteps += 1
            }
        }
        // The files kept hold the last steps; the current one ends with the last.
        let current = try SessionRecording<ShelfAction>(contentsOf: file)
        #expect(current.steps.last?.index == recorder.stepCount - 1)
        #expect(replayedSteps > 20)
    }

    @Test("In a store with persistence and an observer, a send that changes one of 10,000 entities hashes only it")
    func costInAStore() async throws {
        let file = try temporaryFolder().appendingPathComponent("session.jsonl")
        let recorder = try SessionRecorder<Shelf, ShelfAction>(file: file)
        let table = MemoryTable<Book>(name: "books")
        let start = Shelf(books: EntityStore((0..<10_000).map { Book(id: $0, title: "b\($0)") }))
        let store = Store(
            initialState: start, reducer: ShelfReducer(), environment: (), middleware: [recorder],
            persistence: PersistenceMiddleware(writers: [table.writer(\Shelf.books)], debounce: .seconds(3600)))
        let token = store.observe { store in _ = store.books[5] }
        store.send(.note("start"))
        try await recorder.flush()
        let before = recorder.hashedValues
        for id in 0..<100 { store.send(.markRead(id * 7)) }
        try await recorder.flush()
        #expect(recorder.hashedValues - before == 200)   // each changed entity and its id
        token.cancel()
    }

    @Test("Middleware see each action's source")
    func sourcesForMiddleware() async {
        final class Sources: Middleware {
            var seen: [ActionSource] = []
            func beforeReduce(state: Shelf, action: ShelfAction, source: ActionSource) { seen.append(source) }
        }
        let spy = Sources()
        let store = Store(initialState: Shelf(), reducer: ShelfReducer(), environment: (), middleware: [spy])
        await store.send(.load).finish()
        store.send(.note("x"))
        #expect(spy.seen == [.ui, .effect, .ui])
    }
}
