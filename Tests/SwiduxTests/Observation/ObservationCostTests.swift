import Observation
import Testing
@testable import Swidux

/// Dispatch cost does not grow with what observers have read: counted in change tests
/// run per dispatch (a test hook), never timed.
@MainActor
@Suite("Observation: dispatch cost does not grow with reads", .timeLimit(.minutes(1)))
struct ObservationCostTests {
    static let rowCount = 5_000

    func makeStore() -> Store<PlainState, PlainAction> {
        var state = PlainState()
        state.rows = (0..<Self.rowCount).map { PlainRow(id: $0, title: "\($0)") }
        return Store(initialState: state, reducer: plainReducer, environment: ())
    }

    func tracker(_ store: Store<PlainState, PlainAction>) -> ObservationTracker<PlainState> {
        (store.box as! RootBox<PlainState, PlainAction>).tracker
    }

    @Test func scopedReadsOfManyRowsCostNothingToAnUnrelatedDispatch() {
        let store = makeStore()
        let notified = Tally()
        for index in 0..<Self.rowCount {
            let row = store.scope(state: \.rows[index], embed: { (action: PlainAction) in action })
            withObservationTracking { _ = row.title } onChange: { notified.add() }
        }
        #expect(tracker(store).trackedEntryCount == Self.rowCount)
        store.send(.bump)   // compares the new reads once, and keeps what `rows` was
        store.send(.bump)
        #expect(notified.count == 0)
        #expect(tracker(store).lastComparisonCount < 10)
        store.send(.rename(1_234, "changed"))
        #expect(notified.count == 1)
        #expect(tracker(store).trackedEntryCount == Self.rowCount - 1)
        store.send(.bump)
        store.send(.select(3))
        #expect(notified.count == 1)
        #expect(tracker(store).lastComparisonCount < 10)
    }

    @Test func gatedReadsStillSeeEveryChange() {
        let store = makeStore()
        for index in 0..<100 {   // above the gate's threshold
            withObservationTracking { _ = store[dynamicMember: \PlainState.rows[index]] } onChange: {}
        }
        let row5 = store.scope(state: \.rows[5], embed: { (action: PlainAction) in action })
        let title5 = ChangeCounter { _ = row5.title }
        let rows = ChangeCounter { _ = store.rows }
        store.send(.rename(5, "x"))
        store.send(.bump)
        store.send(.renameSame(5))
        store.send(.rename(5, "5"))     // back to the first value
        store.send(.bump)
        store.send(.rename(6, "y"))
        #expect(title5.count == 2)
        #expect(rows.count == 3)
    }

    @Test func rowReadsThroughEntityStoresCostOnlyWhatChanged() {
        let store = Store(initialState: RowState(), reducer: rowReducer, environment: ())
        let root = store.box as! RootBox<RowState, RowAction>
        for id in 0..<1_000 {
            withObservationTracking { _ = store.items[id] } onChange: {}
        }
        withObservationTracking { _ = store.ui } onChange: {}
        store.send(.bump)
        #expect(root.tracker.lastComparisonCount == 1)   // the `ui` reader, not the rows
        #expect(root.tracker.trackedEntryCount == 1_000)
    }
}
