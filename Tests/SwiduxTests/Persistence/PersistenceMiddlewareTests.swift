import Clocks
import Logging
import Testing
import SwiduxTestSupport
@testable import Swidux

struct Tag: Identifiable, Equatable, Sendable { let id: Int; var name: String }
struct Note: Identifiable, Equatable, Sendable { let id: Int; var text: String; var tagID: Int? }

struct NotesState: Equatable {
    var tags = EntityStore<Tag>()
    var notes = EntityStore<Note>()
    var ui = 0
}

enum NotesAction: Sendable, Equatable {
    case addTag(Int, String)
    case addNote(Int, String, tag: Int?)
    case edit(Int, String)
    case delete(Int)
    case deleteAndReinsert(Int)
    case bumpUI
    case batch([NotesAction])
}

struct NotesReducer: SwiduxReducer {
    func reduce(state: inout NotesState, action: NotesAction, environment: Void) -> Effect<NotesAction>? {
        switch action {
        case .addTag(let id, let name): state.tags[id] = Tag(id: id, name: name)
        case .addNote(let id, let text, let tag): state.notes[id] = Note(id: id, text: text, tagID: tag)
        case .edit(let id, let text): state.notes.modify(id) { $0.text = text }
        case .delete(let id): state.notes[id] = nil
        case .deleteAndReinsert(let id):
            let note = state.notes[id]
            state.notes[id] = nil
            if let note { state.notes[id] = note }
        case .bumpUI: state.ui += 1
        case .batch(let actions):
            for action in actions { _ = reduce(state: &state, action: action, environment: ()) }
        }
        return nil
    }
}

@MainActor
struct NotesHarness {
    let clock = SpyClock()
    let tags: MemoryTable<Tag>
    let notes: MemoryTable<Note>
    let persistence: PersistenceMiddleware<NotesState>
    let store: Store<NotesState, NotesAction>
    let order = Recorder<String>()

    init(undo: UndoMiddleware<NotesState>? = nil, logger: Logger = Logger(label: "test"), notesFirst: Bool = false) {
        tags = MemoryTable(name: "tags", log: order)
        notes = MemoryTable(name: "notes", log: order)
        let writers = [tags.writer(\NotesState.tags), notes.writer(\NotesState.notes)]
        persistence = PersistenceMiddleware(
            writers: notesFirst ? writers.reversed() : writers,
            debounce: .milliseconds(250), clock: clock, logger: logger)
        store = Store(initialState: NotesState(), reducer: NotesReducer(), environment: (),
                      persistence: persistence, undo: undo)
    }

    /// Lets the debounce window close on the test clock and waits for that flush to end.
    func closeWindow(sourceLocation: SourceLocation = #_sourceLocation) async {
        let before = persistence.flushCount
        await settle()
        await clock.advance(by: .milliseconds(250))
        let flushed = await waitUntil { persistence.flushCount > before && !persistence.isFlushing }
        #expect(flushed, "the debounce window did not flush", sourceLocation: sourceLocation)
    }

    /// Waits until the timer task started last (window or retry) sleeps on the clock.
    func settle() async {
        let target = persistence.timersScheduled
        _ = await waitUntil { clock.sleepCount >= target }
    }
}

@MainActor
@Suite("PersistenceMiddleware", .timeLimit(.minutes(1)))
struct PersistenceMiddlewareTests {
    @Test func writersFlushInRegistrationOrder() async throws {
        let h = NotesHarness()
        h.store.send(.addNote(1, "n", tag: 1))
        h.store.send(.addTag(1, "t"))
        try await h.store.flush()
        #expect(h.order.values == ["tags", "notes"])
        let reversed = NotesHarness(notesFirst: true)
        reversed.store.send(.addTag(1, "t"))
        reversed.store.send(.addNote(1, "n", tag: 1))
        try await reversed.store.flush()
        #expect(reversed.order.values == ["notes", "tags"])
    }

    @Test func nothingIsWrittenBeforeTheWindowCloses() async {
        let h = NotesHarness()
        h.store.send(.addNote(1, "a", tag: nil))
        await h.settle()
        await h.clock.advance(by: .milliseconds(249))
        for _ in 0..<50 { await Task.yield() }
        #expect(h.notes.batches.isEmpty)
        await h.clock.advance(by: .milliseconds(1))
        #expect(await waitUntil { h.notes.stored == [Note(id: 1, text: "a", tagID: nil)] })
        #expect(h.notes.batches.count == 1)
    }

    @Test func rapidMutationsOfOneEntityProduceOneWrite() async {
        let h = NotesHarness()
        h.store.send(.addNote(1, "v0", tag: nil))
        for i in 1...200 { h.store.send(.edit(1, "v\(i)")) }
        h.store.send(.bumpUI)   // not persisted
        await h.closeWindow()
        #expect(h.notes.batches.count == 1)
        #expect(h.notes.batches[0].writes == [Note(id: 1, text: "v200", tagID: nil)])
        #expect(h.tags.batches.isEmpty)
    }

    @Test func deleteAfterUpsertInOneWindowWritesOnlyTheDelete() async {
        let h = NotesHarness()
        h.store.send(.addNote(1, "a", tag: nil))
        await h.closeWindow()
        h.store.send(.edit(1, "b"))
        h.store.send(.delete(1))
        await h.closeWindow()
        #expect(h.notes.batches.count == 2)
        #expect(h.notes.batches[1].writes.isEmpty)
        #expect(h.notes.batches[1].deletions == [1])
        #expect(h.notes.stored.isEmpty)
    }

    @Test func deleteThenReinsertInOneReducerCallKeepsTheEntity() async {
        let h = NotesHarness()
        h.store.send(.addNote(1, "a", tag: nil))
        await h.closeWindow()
        h.store.send(.deleteAndReinsert(1))
        await h.closeWindow()
        #expect(h.notes.stored == [Note(id: 1, text: "a", tagID: nil)])
    }

    @Test func deleteThenUndoInOneWindowKeepsTheEntity() async {
        let h = NotesHarness(undo: UndoMiddleware(maxDepth: 10, recording: \.tags, \.notes))
        h.store.send(.addNote(1, "a", tag: nil))
        await h.closeWindow()
        h.store.send(.delete(1))
        h.store.undo()
        await h.closeWindow()
        #expect(h.notes.batches.count == 2)
        #expect(h.notes.batches.last?.deletions == [])
        #expect(h.notes.batches.last?.writes == [Note(id: 1, text: "a", tagID: nil)])
        #expect(h.store.notes.values == [Note(id: 1, text: "a", tagID: nil)])
        #expect(h.notes.stored == [Note(id: 1, text: "a", tagID: nil)])
    }

    @Test func flushesNeverOverlapAndTheNewerValueLandsLast() async throws {
        let h = NotesHarness()
        let gate = Gate()
        h.notes.gate = gate
        h.store.send(.addNote(1, "old", tag: nil))
        await h.settle()
        await h.clock.advance(by: .milliseconds(250))      // flush #1 starts and blocks
        #expect(await waitUntil { h.persistence.isFlushing })
        h.store.send(.edit(1, "new"))
        await h.settle()
        await h.clock.advance(by: .milliseconds(250))      // window #2 closes while #1 is in flight
        for _ in 0..<50 { await Task.yield() }
        await gate.open()
        try await h.persistence.flush()
        #expect(h.notes.maxConcurrentWrites == 1)
        #expect(h.notes.batches.map { $0.writes.map(\.text) } == [["old"], ["new"]])
        #expect(h.notes.stored.map(\.text) == ["new"])
    }

    @Test func flushWhileTheWindowIsOpenWritesNowAndReturnsAfterTheWrite() async throws {
        let h = NotesHarness()
        h.store.send(.addNote(7, "now", tag: nil))
        try await h.store.flush()
        #expect(h.notes.stored == [Note(id: 7, text: "now", tagID: nil)])
        // The window that was open does not write again.
        await h.clock.advance(by: .seconds(1))
        for _ in 0..<50 { await Task.yield() }
        #expect(h.notes.batches.count == 1)
    }

    @Test func failingWriterKeepsItsBatchRetriesWithBackoffAndConverges() async throws {
        let sink = CapturedLog()
        let h = NotesHarness(logger: Logger(label: "test") { _ in sink })
        let failures = Recorder<String>()
        h.persistence.onError = { failures.append("\($0.writer)#\($0.attempt)") }
        var errorStream = h.persistence.errors.makeAsyncIterator()
        h.notes.failNext(2)
        h.store.send(.addTag(1, "t"))
        h.store.send(.addNote(1, "a", tag: 1))
        await #expect(throws: PersistenceWriteFailure.self) { try await h.store.flush() }
        #expect(h.tags.stored.count == 1)        // the writer before the failing one was written
        #expect(h.notes.stored.isEmpty)
        #expect(h.persistence.hasPendingWrites)  // nothing lost
        let first = await errorStream.next()
        #expect(first?.attempt == 1)
        #expect(first?.writer == "\\NotesState.notes")
        // Newer changes while failing merge with the kept batch.
        h.store.send(.addNote(2, "b", tag: nil))
        h.store.send(.edit(1, "a2"))
        // Retry 1 after 500 ms (fails), retry 2 after 1 s more (succeeds).
        await h.settle()
        await h.clock.advance(by: .milliseconds(500))
        #expect(await waitUntil { failures.values.count == 2 })
        await h.settle()
        await h.clock.advance(by: .milliseconds(999))
        for _ in 0..<50 { await Task.yield() }
        #expect(h.notes.stored.isEmpty)
        await h.clock.advance(by: .milliseconds(1))
        #expect(await waitUntil { h.notes.stored.count == 2 })
        #expect(h.notes.stored == h.store.notes.values)
        #expect(!h.persistence.hasPendingWrites)
        #expect(failures.values == ["\\NotesState.notes#1", "\\NotesState.notes#2"])
        #expect(sink.messages.filter { $0.contains("failed") }.count == 2)
    }

    @Test func dispatchLoopIsWarnedAboutNotHung() async {
        let sink = CapturedLog()
        let h = NotesHarness(logger: Logger(label: "test") { _ in sink })
        h.persistence.loopWarningThreshold = 5
        for i in 0..<20 { h.store.send(.addNote(i, "x", tag: nil)) }
        #expect(sink.messages.filter { $0.contains("possible dispatch loop") }.count == 1)
        await h.closeWindow()
        #expect(h.notes.stored.count == 20)
    }

    @Test func changesRecordedInTheInitialStateArePersisted() async throws {
        var initial = NotesState()
        initial.tags[1] = Tag(id: 1, name: "seeded")
        let hydrated = EntityStore([Note(id: 9, text: "from db", tagID: nil)])
        initial.notes = hydrated
        let table = MemoryTable<Tag>()
        let notes = MemoryTable<Note>()
        let persistence = PersistenceMiddleware<NotesState>(writers: [table.writer(\.tags), notes.writer(\.notes)])
        let store = Store(initialState: initial, reducer: NotesReducer(), environment: (), persistence: persistence)
        try await store.flush()
        #expect(table.stored == [Tag(id: 1, name: "seeded")])
        #expect(notes.batches.isEmpty)  // hydration recorded nothing
    }

    @Test func oneEntityChangeDoesNotCopyTheCollectionWhileObservedAndPersisted() async throws {
        let h = NotesHarness()
        h.store.send(.batch((0..<1000).map { .addNote($0, "n\($0)", tag: nil) }))
        try await h.store.flush()
        let reads = ChangeCounter { _ = h.store.notes.entityStore }   // the whole slice
        let root = try #require(h.store.box as? RootBox<NotesState, NotesAction>)
        let before = root.storageIdentity(\.notes)
        h.store.send(.edit(500, "changed"))
        #expect(reads.count == 1)
        #expect(root.storageIdentity(\.notes) == before)   // mutated in place: no copy-on-write copy
        #expect(h.store.notes[500]?.text == "changed")
    }
}

extension RootBox {
    /// The identity of an entity store's storage buffer (tests: proves no copy happened).
    func storageIdentity<E>(_ keyPath: KeyPath<State, EntityStore<E>>) -> ObjectIdentifier {
        state[keyPath: keyPath].storageIdentity
    }
}
