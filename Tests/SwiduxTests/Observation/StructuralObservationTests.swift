import Observation
import Testing
@testable import Swidux

/// A plain struct: deliberately not `Equatable`.
struct PlainRow {
    var id: Int
    var title: String
}

/// A plain class: compared by identity.
final class PlainObject {}

/// An enum with a payload that is not `Equatable`.
enum PlainRoute {
    case list
    case settings
    case detail(PlainRow)
}

/// State whose slices are not `Equatable`.
struct PlainState {
    var rows: [PlainRow] = [PlainRow(id: 1, title: "a"), PlainRow(id: 2, title: "b")]
    var selected: PlainRow? = nil
    var route: PlainRoute = .list
    var object = PlainObject()
    var byID: [Int: PlainRow] = [1: PlainRow(id: 1, title: "a")]
    var counter = 0
}

enum PlainAction: Sendable {
    case noop, bump, rename(Int, String), renameSame(Int), select(Int?), route(String), replaceObject
}

@MainActor let plainReducer = Reduce<PlainState, PlainAction, Void> { state, action, _ in
    switch action {
    case .noop: break
    case .bump: state.counter += 1
    case .rename(let index, let title): state.rows[index].title = title
    case .renameSame(let index): state.rows[index].title = state.rows[index].title
    case .select(let index): state.selected = index.map { state.rows[$0] }
    case .route(let name):
        switch name {
        case "list": state.route = .list
        case "settings": state.route = .settings
        default: state.route = .detail(PlainRow(id: 9, title: name))
        }
    case .replaceObject: state.object = PlainObject()
    }
    return nil
}

@MainActor
@Suite("Observation of non-Equatable slices", .timeLimit(.minutes(1)))
struct StructuralObservationTests {
    @Test func noOpActionsNotifyNoReaderOfNonEquatableSlices() {
        let store = Store(initialState: PlainState(), reducer: plainReducer, environment: ())
        let rows = ChangeCounter { _ = store.rows }
        let selected = ChangeCounter { _ = store.selected }
        let route = ChangeCounter { _ = store.route }
        let object = ChangeCounter { _ = store.object }
        let byID = ChangeCounter { _ = store.byID }
        let whole = ChangeCounter { _ = store.state }
        store.send(.noop)
        store.send(.renameSame(0))
        store.send(.select(nil))
        store.send(.route("list"))
        #expect(rows.count == 0)
        #expect(selected.count == 0)
        #expect(route.count == 0)
        #expect(object.count == 0)
        #expect(byID.count == 0)
        #expect(whole.count == 0)
    }

    @Test func anActionOnOneSliceNotifiesOnlyItsReaders() {
        let store = Store(initialState: PlainState(), reducer: plainReducer, environment: ())
        let rows = ChangeCounter { _ = store.rows }
        let firstRow = ChangeCounter { _ = store[dynamicMember: \PlainState.rows[0]] }
        let selected = ChangeCounter { _ = store.selected }
        let route = ChangeCounter { _ = store.route }
        let object = ChangeCounter { _ = store.object }
        store.send(.bump)
        #expect([rows.count, firstRow.count, selected.count, route.count, object.count] == [0, 0, 0, 0, 0])
        store.send(.rename(1, "B"))
        #expect([rows.count, firstRow.count, selected.count, route.count, object.count] == [1, 0, 0, 0, 0])
        store.send(.select(0))
        #expect(selected.count == 1)
        store.send(.select(0))                 // same value again
        #expect(selected.count == 1)
        store.send(.route("settings"))         // payload-free case to payload-free case
        #expect(route.count == 1)
        store.send(.route("x"))                // to a payload case
        #expect(route.count == 2)
        store.send(.route("x"))                // same payload
        #expect(route.count == 2)
        store.send(.route("y"))                // same case, other payload
        #expect(route.count == 3)
        store.send(.replaceObject)             // another instance: identity changed
        #expect(object.count == 1)
        #expect([rows.count, firstRow.count] == [1, 0])
    }

    @Test func mviStoreStateThatIsNotEquatableNotifiesOnlyOnChange() {
        let store = MVIStore<PlainState, PlainAction, Never>(
            initial: PlainState(),
            reduceIntent: { state, intent in _ = plainReducer.reduce(state: &state, action: intent, environment: ()); return nil },
            reduceAction: { (_: inout PlainState, _: Never) in }
        )
        let reader = ChangeCounter { _ = store.state }
        store.send(.noop)
        store.send(.renameSame(1))
        store.send(.route("list"))
        #expect(reader.count == 0)
        store.send(.bump)
        #expect(reader.count == 1)
        store.send(.route("z"))
        #expect(reader.count == 2)
    }

    @Test func onlyValuesThatCannotBeComparedCountAsChanged() {
        struct WithClosure { var value = 1; var handler: () -> Void = {} }
        let object = PlainObject()
        let cases: [(Any, Any, Bool)] = [
            ([PlainRow(id: 1, title: "a")], [PlainRow(id: 1, title: "a")], false),
            ([PlainRow(id: 1, title: "a")], [PlainRow(id: 1, title: "b")], true),
            ([PlainRow(id: 1, title: "a")], [PlainRow](), true),
            (PlainRow?.none as Any, PlainRow?.none as Any, false),
            (PlainRow?.none as Any, PlainRow?.some(PlainRow(id: 1, title: "a")) as Any, true),
            (PlainRoute.list, PlainRoute.list, false),
            (PlainRoute.list, PlainRoute.settings, true),
            (PlainRoute.detail(PlainRow(id: 1, title: "a")), PlainRoute.detail(PlainRow(id: 1, title: "a")), false),
            (PlainRoute.detail(PlainRow(id: 1, title: "a")), PlainRoute.detail(PlainRow(id: 2, title: "a")), true),
            (object, object, false),
            (object, PlainObject(), true),
            ((1, PlainRow(id: 1, title: "a")), (1, PlainRow(id: 1, title: "a")), false),
            ([1: PlainRow(id: 1, title: "a")], [1: PlainRow(id: 1, title: "a")], false),
            ([1: PlainRow(id: 1, title: "a")], [1: PlainRow(id: 1, title: "c")], true),
            (WithClosure(), WithClosure(), true),       // a closure cannot be compared
        ]
        for (index, (old, new, changed)) in cases.enumerated() {
            let snapshot = ChangeDetector.snapshot(old, strategy: ChangeDetector.strategy(for: old))
            #expect(ChangeDetector.hasChanged(snapshot, to: new) == changed, "case \(index)")
        }
    }
}
