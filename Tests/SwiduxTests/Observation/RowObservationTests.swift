import Foundation
import Observation
import Testing
@testable import Swidux

struct RowFeature {
    var rows = EntityStore((0..<100).map { ObservedItem(id: $0, title: "\($0)") })
    var flag = false
}

struct RowState {
    var items = EntityStore((0..<1_000).map { ObservedItem(id: $0, title: "\($0)") })
    var ui = 0
    var feature = RowFeature()
}

enum RowAction: Sendable {
    case noop, bump, rename(Int, String), insert(Int), delete(Int), sortDescending, moveFirstToEnd
    case replaceAll, removeMultiples(of: Int), mergeTitle(Int, String)
    case featureRename(Int, String), featureDelete(Int), featureInsert(Int), featureFlag
}

@MainActor let rowReducer = Reduce<RowState, RowAction, Void> { state, action, _ in
    switch action {
    case .noop: break
    case .bump: state.ui += 1
    case .rename(let id, let title): state.items.modify(id) { $0.title = title }
    case .insert(let id): state.items[id] = ObservedItem(id: id, title: "\(id)")
    case .delete(let id): state.items[id] = nil
    case .sortDescending: state.items.sort { $0.id > $1.id }
    case .moveFirstToEnd: state.items.move(fromOffsets: [0], toOffset: state.items.count)
    case .replaceAll: state.items = EntityStore(state.items.values)   // hydration: a new store
    case .removeMultiples(let n): state.items.removeAll { $0.id % n == 0 }
    case .mergeTitle(let id, let title):
        state.items.merge(from: [ObservedItem(id: id, title: title)]) { _, _ in true }
    case .featureRename(let id, let title): state.feature.rows.modify(id) { $0.title = title }
    case .featureDelete(let id): state.feature.rows[id] = nil
    case .featureInsert(let id): state.feature.rows[id] = ObservedItem(id: id, title: "\(id)")
    case .featureFlag: state.feature.flag.toggle()
    }
    return nil
}

/// Counts one-shot notifications (no re-arming).
@MainActor
final class Tally {
    var count = 0
    nonisolated func add() { MainActor.assumeIsolated { count += 1 } }
}

@MainActor
@Suite("Row-level observation of entity stores", .timeLimit(.minutes(1)))
struct RowObservationTests {
    func makeStore() -> Store<RowState, RowAction> {
        Store(initialState: RowState(), reducer: rowReducer, environment: ())
    }

    func trackedEntries(_ store: Store<RowState, RowAction>) -> Int {
        (store.box as! RootBox<RowState, RowAction>).tracker.trackedEntryCount
    }

    /// One counter per row, reading `store.items[id]`.
    func rowReaders(_ store: Store<RowState, RowAction>, _ ids: Range<Int> = 0..<1_000) -> [Int: ChangeCounter] {
        Dictionary(uniqueKeysWithValues: ids.map { id in (id, ChangeCounter { _ = store.items[id] }) })
    }

    func fired(_ readers: [Int: ChangeCounter]) -> [Int: Int] {
        readers.filter { $0.value.count > 0 }.mapValues(\.count)
    }

    @Test func modifyingOneEntityNotifiesOnlyItsRowReader() {
        let store = makeStore()
        let rows = rowReaders(store)
        let ids = ChangeCounter { _ = store.items.ids }
        let count = ChangeCounter { _ = store.items.count }
        store.send(.rename(500, "changed"))
        #expect(fired(rows) == [500: 1])
        #expect(ids.count == 0)
        #expect(count.count == 0)
        store.send(.rename(500, "again"))      // re-armed by the counter's read in onChange
        store.send(.rename(7, "seven"))
        #expect(fired(rows) == [500: 2, 7: 1])
        #expect(store.items[500]?.title == "again")
    }

    @Test func insertionAndDeletionNotifyMembershipReadersAndTheRowOnly() {
        let store = makeStore()
        let rows = rowReaders(store)
        let absent = ChangeCounter { _ = store.items[5_000] }
        let ids = ChangeCounter { _ = store.items.ids }
        let count = ChangeCounter { _ = store.items.count }
        let isEmpty = ChangeCounter { _ = store.items.isEmpty }
        let contains = ChangeCounter { _ = store.items.contains(5_000) }
        store.send(.insert(5_000))
        #expect(fired(rows).isEmpty)
        #expect([absent.count, ids.count, count.count, isEmpty.count, contains.count] == [1, 1, 1, 1, 1] as [Int])
        store.send(.delete(42))
        #expect(fired(rows) == [42: 1])
        #expect([absent.count, ids.count, count.count, isEmpty.count, contains.count] == [1, 2, 2, 2, 2] as [Int])
        store.send(.removeMultiples(of: 100))   // 0, 100, …, 900 and 5,000
        #expect(fired(rows).keys.sorted() == [0, 42, 100, 200, 300, 400, 500, 600, 700, 800, 900])
        #expect(absent.count == 2)
        #expect(ids.count == 3)
    }

    @Test func reorderNotifiesIDReadersNotRowReaders() {
        let store = makeStore()
        let rows = rowReaders(store)
        let ids = ChangeCounter { _ = store.items.ids }
        let count = ChangeCounter { _ = store.items.count }
        let first = ChangeCounter { _ = store.items[position: 0] }   // by position
        store.send(.sortDescending)
        #expect(fired(rows).isEmpty)
        #expect(ids.count == 1)
        #expect(count.count == 1)   // membership and order are observed together
        #expect(first.count == 1)
        store.send(.moveFirstToEnd)
        #expect(fired(rows).isEmpty)
        #expect(ids.count == 2)
    }

    @Test func actionsThatChangeNoEntityNotifyNothing() {
        let store = makeStore()
        let rows = rowReaders(store)
        let ids = ChangeCounter { _ = store.items.ids }
        let values = ChangeCounter { _ = store.items.values }
        store.send(.noop)
        store.send(.bump)
        store.send(.rename(3, "3"))        // same value
        store.send(.delete(12_345))        // no such entity
        store.send(.featureRename(1, "x"))
        #expect(fired(rows).isEmpty)
        #expect(ids.count == 0)
        #expect(values.count == 0)
    }

    @Test func wholeSliceReadsSeeEveryChange() {
        let store = makeStore()
        let values = ChangeCounter { _ = store.items.values }
        var iterated = 0
        let iteration = ChangeCounter { for _ in store.items { iterated += 1 } }
        let plain = ChangeCounter { let items: EntityStore<ObservedItem> = store.items; _ = items }
        store.send(.rename(1, "one"))
        store.send(.insert(2_000))
        store.send(.sortDescending)
        #expect([values.count, iteration.count, plain.count] == [3, 3, 3] as [Int])
        #expect(iterated == 4 * 1_000 + 2)
    }

    @Test func bulkChangesTheLogCannotDescribeNotifyEveryReaderOfTheSlice() {
        let store = makeStore()
        let rows = rowReaders(store, 0..<10)
        store.send(.replaceAll)            // a new store: the readers cannot be told apart
        #expect(fired(rows).count == 10)
        store.send(.mergeTitle(3, "merged"))   // merge logs its ids
        #expect(fired(rows) == [0: 1, 1: 1, 2: 1, 3: 2, 4: 1, 5: 1, 6: 1, 7: 1, 8: 1, 9: 1])
    }

    @Test func undoAndRedoNotifyTheRowsTheyChange() {
        let store = Store(initialState: RowState(), reducer: rowReducer, environment: (),
                          undo: UndoMiddleware(maxDepth: 10, recording: \.items, \.feature))
        let rows = rowReaders(store, 0..<10)
        let ids = ChangeCounter { _ = store.items.ids }
        store.send(.rename(5, "five"))
        #expect(fired(rows) == [5: 1])
        store.undo()                       // a restored snapshot: at least row 5, never fewer
        #expect(rows[5]?.count == 2)
        #expect(store.items[5]?.title == "5")
        store.send(.delete(3))
        #expect(rows[3]?.count ?? 0 >= 1)
        #expect(ids.count >= 1)
        let idsBefore = ids.count
        store.undo()
        #expect(ids.count == idsBefore + 1)
        #expect(store.items.contains(3))
    }

    @Test func restoreLogsExactlyWhatItChanges() {
        var items = EntityStore((0..<10).map { ObservedItem(id: $0, title: "\($0)") })
        let snapshot = items
        items.modify(2) { $0.title = "two" }
        items[4] = nil
        items[20] = ObservedItem(id: 20, title: "20")
        let seen = items.changeFingerprint
        ChangeFingerprint.markSeen()
        items.restore(from: snapshot)
        let changes = items._observationChanges.changes(since: seen, current: items.changeFingerprint)
        #expect(changes.map { Set($0.ids) } == [2, 4, 20])
        #expect(changes?.membership == true)
    }

    @Test func scopedStoresObserveRowsTheSameWay() {
        let store = makeStore()
        let child = store.scope(state: \.feature, embed: { $0 })
        let rows = Dictionary(uniqueKeysWithValues: (0..<100).map { id in (id, ChangeCounter { _ = child.rows[id] }) })
        let ids = ChangeCounter { _ = child.rows.ids }
        let flag = ChangeCounter { _ = child.flag }
        child.send(.featureRename(10, "ten"))
        #expect(fired(rows) == [10: 1])
        #expect(ids.count == 0)
        store.send(.rename(10, "root ten"))    // another slice
        store.send(.featureFlag)
        #expect(fired(rows) == [10: 1])
        #expect(flag.count == 1)
        child.send(.featureDelete(20))
        #expect(fired(rows) == [10: 1, 20: 1])
        #expect(ids.count == 1)
        child.send(.featureInsert(500))
        #expect(fired(rows) == [10: 1, 20: 1])
        #expect(ids.count == 2)
    }

    @Test func aRowReadThatFiredLeavesNothingTracked() {
        let store = makeStore()
        let notified = Tally()
        withObservationTracking { _ = store.items[300] } onChange: { notified.add() }
        #expect(trackedEntries(store) == 1)
        store.send(.delete(300))
        #expect(notified.count == 1)
        #expect(trackedEntries(store) == 0)
        store.send(.insert(300))
        store.send(.delete(300))
        #expect(notified.count == 1)
        #expect(trackedEntries(store) == 0)
    }

    @Test func oneObserverOfARowAndOfAKeyPathIsNotifiedByEither() {
        // Rows and key paths are kept by two registrars: one `withObservationTracking`
        // reading both is notified once by a change of either, and then no more.
        let store = makeStore()
        let first = Tally(), second = Tally()
        withObservationTracking { _ = store.items[7]; _ = store.ui } onChange: { first.add() }
        withObservationTracking { _ = store.ui; _ = store.items.ids } onChange: { second.add() }
        store.send(.rename(7, "seven"))
        #expect(first.count == 1)
        #expect(second.count == 0)
        store.send(.bump)
        #expect(first.count == 1)      // one-shot: cancelled by the first notification
        #expect(second.count == 1)
        store.send(.delete(3))
        #expect(second.count == 1)
        #expect(trackedEntries(store) == 0)
    }

    @Test func readsDoNotAccumulateAfterTheyFired() {
        let store = makeStore()
        let notified = Tally()
        for id in 0..<1_000 {
            withObservationTracking { _ = store.items[id] } onChange: { notified.add() }
        }
        withObservationTracking { _ = store.ui } onChange: { notified.add() }
        for index in 0..<50 {
            withObservationTracking { _ = store[dynamicMember: \RowState.feature.rows[index]] } onChange: { notified.add() }
        }
        #expect(trackedEntries(store) == 1_051)
        store.send(.replaceAll)
        store.send(.bump)
        store.send(.featureDelete(3))
        #expect(notified.count == 1_002)
        #expect(trackedEntries(store) == 49)
        store.send(.bump)        // not read again: nothing to notify
        #expect(notified.count == 1_002)
        _ = store.ui             // a new read re-arms
        #expect(trackedEntries(store) == 50)
    }

    @Test func theLogReportsExactlyTheChangedIDs() {
        var items = EntityStore((0..<10).map { ObservedItem(id: $0, title: "\($0)") })
        // A reader marks the fingerprint it saw, as the observing store and `EntityIndex` do.
        let seen = items.changeFingerprint
        ChangeFingerprint.markSeen()
        items.modify(3) { $0.title = "x" }
        items[11] = ObservedItem(id: 11, title: "11")
        items[4] = nil
        let changes = items._observationChanges.changes(since: seen, current: items.changeFingerprint)
        #expect(changes.map { Array($0.ids) } == [3, 11, 4])
        #expect(changes?.membership == true)
        var copy = items
        ChangeFingerprint.markSeen()
        copy.sort { $0.id > $1.id }
        let reorder = copy._observationChanges.changes(since: items.changeFingerprint, current: copy.changeFingerprint)
        #expect(reorder.map { Array($0.ids) } == [])
        #expect(reorder?.membership == true)
        // A fingerprint from another history is not found: the caller must assume anything changed.
        #expect(copy._observationChanges.changes(since: EntityStore<ObservedItem>().changeFingerprint, current: copy.changeFingerprint) == nil)
        // The log is bounded.
        for round in 0..<5_000 { items.modify(round % 10) { $0.title = "\(round)" } }
        #expect(items._observationChanges.ids.count <= EntityObservationLog<Int>.maxIDs)
        #expect(items._observationChanges.steps.count <= EntityObservationLog<Int>.maxSteps)
    }

    @Test func mutationsBetweenTwoReadsMakeOneStep() {
        var items = EntityStore((0..<10).map { ObservedItem(id: $0, title: "\($0)") })
        let first = items.changeFingerprint
        ChangeFingerprint.markSeen()
        items.modify(1) { $0.title = "a" }
        let unseen = items.changeFingerprint   // read, not marked: no reader looks it up
        items[2] = nil
        items.sort { $0.id > $1.id }
        // Whether the steps merged or not (another test handing out a fingerprint in
        // between starts a new step), the log answers for the fingerprint a reader saw.
        let changes = items._observationChanges.changes(since: first, current: items.changeFingerprint)
        #expect(changes.map { Array($0.ids) } == [1, 2])
        #expect(changes?.membership == true)
        #expect(changes?.reorder == true)
        // From a fingerprint no reader marked: exactly what followed it, or nil when its step
        // was merged (the caller then assumes anything changed: never a missed change).
        if let fromUnseen = items._observationChanges.changes(since: unseen, current: items.changeFingerprint) {
            #expect(Array(fromUnseen.ids) == [2])
        }

        // After a reader marks what it saw, the next change starts a new step from it.
        let second = items.changeFingerprint
        ChangeFingerprint.markSeen()
        items.modify(5) { $0.title = "b" }
        items.modify(6) { $0.title = "c" }
        let later = items._observationChanges.changes(since: second, current: items.changeFingerprint)
        #expect(later.map { Array($0.ids) } == [5, 6])
        #expect(later?.membership == false)
        #expect(later?.reorder == false)
        #expect(items._observationChanges.changes(since: first, current: items.changeFingerprint).map { Array($0.ids) } == [1, 2, 5, 6])

        // Changes in a row make one step. Tests running in parallel hand out fingerprints
        // too, which may split a step: at least one try runs undisturbed. A test on the
        // other core can hand them out for a while without a pause (100 tries in a row were
        // all split once, on a loaded CI machine): the tries pause and go on for seconds.
        let deadline = Date().addingTimeInterval(30)
        var merged = false
        while !merged, Date() < deadline {
            var store = EntityStore((0..<10).map { ObservedItem(id: $0, title: "\($0)") })
            ChangeFingerprint.markSeen()
            for id in 0..<10 { store.modify(id) { $0.title = "changed" } }
            store[3] = nil
            merged = store._observationChanges.steps.count == 1 && store._observationChanges.ids.count == 11
            if !merged { Thread.sleep(forTimeInterval: 0.001) }
        }
        #expect(merged)
    }
}
