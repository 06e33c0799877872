import Foundation
import Logging
import Testing
import SwiduxTestSupport
@testable import Swidux

struct Row: Identifiable, Equatable, Sendable {
    let id: String
    var value: Int
}

struct RowsState {
    var rows = EntityStore<Row>()
}

/// One action: a mutation of the state (tests describe the reduce inline).
struct RowsAction: Sendable {
    let mutate: @Sendable (inout RowsState) -> Void
}

@MainActor
let rowsReducer = Reduce<RowsState, RowsAction, Void> { state, action, _ in
    action.mutate(&state)
    return nil
}

/// A store of rows persisted into a ``PositionTable`` (SQLite-like: positions, delete wins).
@MainActor
final class RowsHarness {
    let table: PositionTable<Row>
    let clock = SpyClock()
    let persistence: PersistenceMiddleware<RowsState>
    let store: Store<RowsState, RowsAction>
    let vanished = Recorder<[String]>()
    let failures = Recorder<PersistenceWriteFailure>()

    /// `stored` rows are both in the table and hydrated into the store.
    convenience init(stored: [Row] = [], undo: UndoMiddleware<RowsState>? = nil, logger: Logger = Logger(label: "test")) {
        self.init(table: PositionTable(stored), undo: undo, logger: logger)
    }

    /// A store hydrated from `table`'s rows.
    init(table: PositionTable<Row>, undo: UndoMiddleware<RowsState>? = nil, logger: Logger = Logger(label: "test")) {
        self.table = table
        persistence = PersistenceMiddleware(writers: [table.writer(\RowsState.rows)], clock: clock, logger: logger)
        store = Store(initialState: RowsState(rows: EntityStore(table.stored)), reducer: rowsReducer, environment: (),
                      persistence: persistence, undo: undo)
        persistence.onVanished = { [vanished] in vanished.append($0.ids.map { "\($0)" }) }
        persistence.onError = { [failures] in failures.append($0) }
    }

    func send(_ mutate: @escaping @Sendable (inout RowsState) -> Void) { store.send(RowsAction(mutate: mutate)) }

    var ids: [String] { store.rows.ids }

    /// Starts a flush whose write is held in flight; `release` lets it go on.
    func startHeldFlush() async -> Task<Void, any Error> {
        table.holdNextWrite()
        let task = Task { try await persistence.flush() }
        _ = await waitUntil { self.table.isHolding }
        return task
    }

    /// Releases the held write (succeeding or failing) and waits for the flush to settle.
    func release(_ task: Task<Void, any Error>, failing: Bool) async {
        table.release(failing: failing)
        _ = await task.result
    }
}

func row(_ id: String, _ value: Int = 0) -> Row { Row(id: id, value: value) }

@MainActor
@Suite("Persistence hardening", .timeLimit(.minutes(1)))
struct PersistenceHardeningTests {
    // MARK: Item 12: a retried flush writes the right order

    @Test func anEntityReinsertedWhileItsDeletionFailsInFlightGetsTheStoresPosition() async throws {
        let h = RowsHarness(stored: [row("a"), row("b"), row("c")])
        h.send { $0.rows["a"] = nil }
        let flush = await h.startHeldFlush()
        h.send { $0.rows["a"] = row("a", 1) }           // re-inserted while the deletion is in flight
        await h.release(flush, failing: true)
        try await h.persistence.flush()
        #expect(h.ids == ["b", "c", "a"])
        #expect(h.table.storedIDs == h.ids)
    }

    @Test func aRetriedBatchCarriesTheCurrentOrderNotTheFailedOne() async throws {
        let h = RowsHarness(stored: [row("a"), row("b"), row("c"), row("d")])
        h.send { state in
            state.rows["a"] = nil
            state.rows.sort { $0.id > $1.id }
        }
        let flush = await h.startHeldFlush()             // deletion of a, order [d c b]
        h.send { $0.rows["e"] = row("e") }
        h.send { $0.rows["a"] = row("a", 1) }
        await h.release(flush, failing: true)
        try await h.persistence.flush()
        #expect(h.ids == ["d", "c", "b", "e", "a"])
        #expect(h.table.batches.last?.order == h.ids)
        #expect(h.table.storedIDs == h.ids)
    }

    @Test func anOrderInFlightIsRefreshedByLaterDrainsBeforeItIsRetried() async throws {
        let h = RowsHarness(stored: [row("a"), row("b"), row("c")])
        h.send { $0.rows.sort { $0.id > $1.id } }         // c b a
        let flush = await h.startHeldFlush()
        h.send { $0.rows["b"] = nil }
        h.send { $0.rows["d"] = row("d") }
        await h.release(flush, failing: true)
        try await h.persistence.flush()
        #expect(h.table.batches.last?.order == ["c", "a", "d"])
        #expect(h.table.storedIDs == h.ids)
    }

    @Test func severalFlushesWaitingOnTheOneInFlightAllFinish() async throws {
        // Two waiters on one flush: each must wake to a settled state (it used to spin
        // on the main actor when a waiter woke before the flush had cleared itself).
        let h = RowsHarness(stored: [row("a")])
        h.send { $0.rows["b"] = row("b") }
        let held = await h.startHeldFlush()
        h.send { $0.rows["c"] = row("c") }
        let second = Task { try await h.persistence.flush() }
        let third = Task { try await h.persistence.flush() }
        for _ in 0..<20 { await Task.yield() }
        await h.release(held, failing: false)
        try await second.value
        try await third.value
        #expect(h.table.storedIDs == ["a", "b", "c"])
        #expect(!h.persistence.isFlushing)
    }

    // MARK: Item 15: merge after a deletion

    @Test func mergeAfterADeletionInTheSameReduceKeepsTheEntityInTheFile() async throws {
        let h = RowsHarness(stored: [row("a"), row("b"), row("c")])
        h.send { state in
            state.rows["b"] = nil
            state.rows.merge(from: EntityStore([row("b")])) { _, _ in false }
        }
        try await h.persistence.flush()
        #expect(h.ids == ["a", "c", "b"])
        #expect(h.table.storedIDs == h.ids)
    }

    @Test func mergeAfterADeletionDrainedEarlierKeepsTheEntityInTheFile() async throws {
        let h = RowsHarness(stored: [row("a"), row("b"), row("c")])
        h.send { $0.rows["b"] = nil }
        h.send { $0.rows.merge(from: EntityStore([row("b", 7)])) { _, _ in false } }
        try await h.persistence.flush()
        #expect(h.store.rows.values == [row("a"), row("c"), row("b", 7)])
        #expect(h.table.stored == h.store.rows.values)
    }

    @Test func mergeAfterADeletionInFlightKeepsTheEntityInTheFile() async throws {
        let h = RowsHarness(stored: [row("a"), row("b"), row("c")])
        h.send { $0.rows["b"] = nil }
        let flush = await h.startHeldFlush()
        h.send { $0.rows.merge(from: EntityStore([row("b")])) { _, _ in false } }
        await h.release(flush, failing: false)
        try await h.persistence.flush()
        #expect(h.table.stored == h.store.rows.values)
    }

    @Test func mergeIntoAnEmptiedStoreKeepsTheEntitiesInTheFile() async throws {
        let h = RowsHarness(stored: [row("a"), row("b")])
        h.send { $0.rows.removeAll() }
        h.send { $0.rows.merge(from: EntityStore([row("b"), row("a")])) { _, _ in false } }
        try await h.persistence.flush()
        #expect(h.ids == ["b", "a"])
        #expect(h.table.storedIDs == h.ids)
    }

    // MARK: Item 16: canonically equivalent ids

    @Test func deletingThroughACanonicallyEquivalentIdDeletesTheStoredId() async throws {
        let nfc = "caf\u{E9}", nfd = "cafe\u{301}"
        let h = RowsHarness()
        h.send { $0.rows[nfc] = row(nfc) }
        try await h.persistence.flush()
        h.send { $0.rows[nfd] = nil }
        try await h.persistence.flush()
        let deleted = try #require(h.table.batches.last?.deletions.first)
        #expect(Array(deleted.utf8) == Array(nfc.utf8))
    }

    // MARK: Item 17a: reporting

    @Test func aFailedOrderOnlyFlushCountsEverythingKeptForRetry() async throws {
        let h = RowsHarness(stored: [row("a"), row("b")])
        h.send { $0.rows.sort { $0.id > $1.id } }
        let flush = await h.startHeldFlush()
        h.send { $0.rows["c"] = row("c") }
        await h.release(flush, failing: true)
        let failure = try #require(h.failures.values.first)
        #expect(failure.pendingCount == 2)   // the reorder and the newer write of c
        #expect(failure.description.contains("2 changes kept for retry"))
    }

    // MARK: Item 14: releasing the store

    @Test func changesPendingWhenTheStoreIsReleasedAreWrittenByAFinalFlush() async {
        let table = PositionTable<Row>()
        weak var released: PersistenceMiddleware<RowsState>?
        do {
            let persistence = PersistenceMiddleware<RowsState>(writers: [table.writer(\.rows)], clock: SpyClock())
            released = persistence
            let store = Store(initialState: RowsState(), reducer: rowsReducer, environment: (), persistence: persistence)
            store.send(RowsAction { $0.rows["a"] = row("a") })
        }
        #expect(released == nil)
        #expect(await waitUntil { table.storedIDs == ["a"] })
    }

    @Test func changesWaitingOnARetryWhenTheStoreIsReleasedAreWritten() async {
        let table = PositionTable<Row>()
        do {
            let persistence = PersistenceMiddleware<RowsState>(writers: [table.writer(\.rows)], clock: SpyClock())
            let store = Store(initialState: RowsState(), reducer: rowsReducer, environment: (), persistence: persistence)
            table.failNext(1)
            store.send(RowsAction { $0.rows["a"] = row("a") })
            await #expect(throws: PersistenceWriteFailure.self) { try await store.flush() }
            store.send(RowsAction { $0.rows["b"] = row("b") })
        }
        #expect(await waitUntil { table.storedIDs == ["a", "b"] })
    }

    @Test func aStoreReleasedWhileAFlushIsInFlightLosesNothing() async throws {
        let table = PositionTable<Row>()
        let flush: Task<Void, any Error>
        do {
            let persistence = PersistenceMiddleware<RowsState>(writers: [table.writer(\.rows)], clock: SpyClock())
            let store = Store(initialState: RowsState(), reducer: rowsReducer, environment: (), persistence: persistence)
            store.send(RowsAction { $0.rows["a"] = row("a") })
            table.holdNextWrite()
            flush = Task { try await persistence.flush() }
            _ = await waitUntil { table.isHolding }
            store.send(RowsAction { $0.rows["b"] = row("b") })   // pending behind the flush in flight
        }
        table.release(failing: true)                               // and the flush in flight fails
        await #expect(throws: PersistenceWriteFailure.self) { try await flush.value }
        #expect(await waitUntil { table.storedIDs == ["a", "b"] })
    }

    @Test func aFinalFlushReportsWhatVanished() async {
        let table = PositionTable<Row>([row("a")])
        let vanished = Recorder<[String]>()
        do {
            let persistence = PersistenceMiddleware<RowsState>(writers: [table.writer(\.rows)], clock: SpyClock())
            persistence.onVanished = { vanished.append($0.ids.map { "\($0)" }) }
            let store = Store(initialState: RowsState(rows: EntityStore([row("a")])), reducer: rowsReducer,
                              environment: (), persistence: persistence)
            store.send(RowsAction { $0.rows.modify("a") { $0.value = 1 } })
            store.send(RowsAction { $0.rows["b"] = row("b") })
            table.deleteExternally(["a"])
        }
        #expect(await waitUntil { vanished.values == [["a"]] })
        #expect(table.storedIDs == ["b"])
    }

    @Test func aFinalFlushThatFailsIsReportedNotSilent() async {
        let table = PositionTable<Row>()
        let sink = CapturedLog()
        let failures = Recorder<PersistenceWriteFailure>()
        do {
            let persistence = PersistenceMiddleware<RowsState>(
                writers: [table.writer(\.rows)], clock: SpyClock(), logger: Logger(label: "test") { _ in sink })
            persistence.onError = { failures.append($0) }
            let store = Store(initialState: RowsState(), reducer: rowsReducer, environment: (), persistence: persistence)
            table.failNext(1)
            store.send(RowsAction { $0.rows["a"] = row("a") })
        }
        #expect(await waitUntil { failures.values.count == 1 })
        #expect(failures.values.first?.pendingCount == 1)
        #expect(sink.messages.contains { $0.contains("released") && $0.contains("not written") })
        #expect(table.stored.isEmpty)
    }

    // MARK: Delete wins over a stale update (issue 18 item 1, Swidux side)

    @Test func insertionsAndUpdatesAreToldApartInTheBatch() async throws {
        let h = RowsHarness(stored: [row("a"), row("b")])
        h.send { $0.rows.modify("a") { $0.value = 1 } }   // update of a hydrated entity
        h.send { $0.rows["c"] = row("c") }                 // insertion
        h.send { $0.rows["c"] = row("c", 2) }              // still an insertion: the backend never saw it
        h.send { $0.rows["b"] = nil }
        try await h.persistence.flush()
        #expect(h.table.batches.last?.insertions == ["c"])
        h.send { $0.rows["b"] = row("b", 3) }              // re-insertion after a deletion
        h.send { $0.rows["c"] = row("c", 4) }              // update of a flushed insertion
        try await h.persistence.flush()
        #expect(h.table.batches.last?.insertions == ["b"])
        #expect(h.table.stored == h.store.rows.values)
    }

    @Test func anUpdateOfARowDeletedByAnotherWriterRemovesTheEntityWithoutWritingBack() async throws {
        let h = RowsHarness(stored: [row("a"), row("b"), row("c")], undo: UndoMiddleware(maxDepth: 10, recording: \.rows))
        h.send { $0.rows.modify("b") { $0.value = 1 } }
        #expect(h.store.canUndo)
        let reads = ChangeCounter { _ = h.store.rows.entityStore }   // the whole slice
        let readsIDs = ChangeCounter { _ = h.store.rows.ids }
        let readsB = ChangeCounter { _ = h.store.rows["b"] }
        let readsA = ChangeCounter { _ = h.store.rows["a"] }
        h.table.deleteExternally(["b"])
        try await h.persistence.flush()
        #expect(h.ids == ["a", "c"])
        #expect(h.vanished.values == [["b"]])
        #expect(reads.count == 1)
        #expect([readsIDs.count, readsB.count, readsA.count] == [1, 1, 0] as [Int])
        // The only step changed "b", which another writer deleted: an undo would do nothing
        // (it never resurrects the row), so the step is dropped instead of left as a phantom.
        #expect(!h.store.canUndo)
        #expect(!h.persistence.hasPendingWrites)
        let written = h.table.batches.count
        try await h.persistence.flush()
        #expect(h.table.batches.count == written)          // nothing written back
        #expect(h.table.stored == h.store.rows.values)
    }

    @Test func anUndoAfterAVanishedUpdateDoesNotResurrectTheEntity() async throws {
        let h = RowsHarness(stored: [row("a"), row("b")], undo: UndoMiddleware(maxDepth: 10, recording: \.rows))
        h.send { $0.rows.modify("b") { $0.value = 1 } }
        h.send { $0.rows["c"] = row("c") }
        h.table.deleteExternally(["b"])
        try await h.persistence.flush()
        h.store.undo()                                      // undoes the insertion of c only
        try await h.persistence.flush()
        #expect(h.ids == ["a"])
        #expect(h.table.stored == h.store.rows.values)
    }

    @Test func aWriterWrittenBeforeAFailingOneSettlesItsVanishedEntities() async throws {
        struct TwoStores {
            var rows = EntityStore<Row>()
            var notes = EntityStore<Note>()
        }
        let rowsTable = PositionTable<Row>([row("a"), row("b")])
        let notesTable = MemoryTable<Note>()
        let persistence = PersistenceMiddleware<TwoStores>(
            writers: [rowsTable.writer(\.rows), notesTable.writer(\.notes)], clock: SpyClock())
        let failures = Recorder<PersistenceWriteFailure>()
        persistence.onError = { failures.append($0) }
        let store = Store(
            initialState: TwoStores(rows: EntityStore([row("a"), row("b")])),
            reducer: Reduce<TwoStores, Int, Void> { state, action, _ in
                state.rows.modify("b") { $0.value = action }
                state.notes[action] = Note(id: action, text: "n", tagID: nil)
                return nil
            },
            environment: (), persistence: persistence)
        store.send(1)
        rowsTable.deleteExternally(["b"])
        notesTable.failNext(1)
        await #expect(throws: PersistenceWriteFailure.self) { try await store.flush() }
        #expect(store.rows.ids == ["a"])                  // the first writer's flush settled
        #expect(failures.values.map(\.pendingCount) == [1])
        try await store.flush()
        #expect(notesTable.stored.map(\.id) == [1])
        #expect(rowsTable.stored == store.rows.values)
    }

    @Test func withoutAStoreVanishedEntitiesLeaveTheStateAtTheNextAfterReduce() async throws {
        // A hand-written store (seed 002) that calls afterReduce itself.
        let table = PositionTable<Row>([row("a"), row("b")])
        let persistence = PersistenceMiddleware<RowsState>(writers: [table.writer(\.rows)], clock: SpyClock())
        var state = RowsState(rows: EntityStore([row("a"), row("b")]))
        state.rows.modify("b") { $0.value = 1 }
        persistence.afterReduce(state: &state)
        table.deleteExternally(["b"])
        try await persistence.flush()
        persistence.afterReduce(state: &state)
        #expect(state.rows.ids == ["a"])
        #expect(state.rows.changes.isEmpty)
        #expect(!persistence.hasPendingWrites)
    }

    @Test func aPendingNewerUpdateOfAVanishedIdIsDropped() async throws {
        let h = RowsHarness(stored: [row("a"), row("b")])
        h.send { $0.rows.modify("b") { $0.value = 1 } }
        let flush = await h.startHeldFlush()
        h.send { $0.rows.modify("b") { $0.value = 2 } }
        h.table.deleteExternally(["b"])
        await h.release(flush, failing: false)
        #expect(h.ids == ["a"])
        #expect(!h.persistence.hasPendingWrites)
        try await h.persistence.flush()
        #expect(h.vanished.values == [["b"]])
        #expect(h.table.stored == h.store.rows.values)
    }

    /// Issue 27 item 5: deleted and added back within a window (as `undo()` does), an entity
    /// the file held is an update, not a re-insertion: another writer's deletion wins.
    @Test func aRowTheFileHeldDeletedAndAddedBackLosesToAnExternalDeletion() async throws {
        let h = RowsHarness(stored: [row("a"), row("b")])
        h.send { $0.rows.modify("b") { $0.value = 1 } }
        let flush = await h.startHeldFlush()
        h.send { $0.rows["b"] = nil }
        h.send { $0.rows["b"] = row("b", 2) }
        h.table.deleteExternally(["b"])
        await h.release(flush, failing: false)
        #expect(h.ids == ["a"])
        try await h.persistence.flush()
        #expect(h.table.stored == [row("a")])
    }

    @Test func aFailedBatchKeepsItsInsertionsAndUpdatesForTheRetry() async throws {
        let h = RowsHarness(stored: [row("a")])
        h.table.failNext(1)
        h.send { $0.rows.modify("a") { $0.value = 1 } }
        h.send { $0.rows["n"] = row("n") }
        await #expect(throws: PersistenceWriteFailure.self) { try await h.persistence.flush() }
        h.table.deleteExternally(["a"])
        try await h.persistence.flush()
        #expect(h.table.batches.last?.insertions == ["n"])
        #expect(h.ids == ["n"])
        #expect(h.vanished.values == [["a"]])
        #expect(h.table.stored == h.store.rows.values)
    }
}
