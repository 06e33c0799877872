import Clocks
import Foundation
import SwiduxTesting
import Testing
@testable import TodosApp

/// Exhaustive reducer tests with SwiduxTesting's `TestStore`: every state change and every
/// action fed back by an effect is asserted; time is a `TestClock`.
@MainActor
@Suite(.timeLimit(.minutes(1))) struct TestStoreTests {
    func makeStore(clock: TestClock<Duration> = TestClock()) -> TestStore<AppState, AppAction> {
        TestStore(initialState: sampleState(), reducer: AppReducer(), environment: testEnvironment(clock: clock))
    }

    @Test func addEditToggleDelete() async {
        let store = makeStore()
        await store.send(.items(.add(id: uuid(13), listID: uuid(1), title: "Bake bread", tags: ["food"]))) {
            $0.items[uuid(13)] = TodoItem(id: uuid(13), listID: uuid(1), title: "Bake bread", createdAt: fixedDate)
            $0.tags[uuid(1000)] = Tag(id: uuid(1000), name: "food")
            let link = ItemTag(itemID: uuid(13), tagID: uuid(1000))
            $0.itemTags[link.id] = link
            $0.ui.selectedItemID = uuid(13)
        }
        await store.send(.items(.setTitle(id: uuid(13), title: "Bake sourdough"))) {
            $0.items[uuid(13)]?.title = "Bake sourdough"
        }
        await store.send(.items(.toggle(id: uuid(13)))) { $0.items[uuid(13)]?.isDone = true }
        await store.send(.items(.delete(id: uuid(13)))) {
            $0.items[uuid(13)] = nil
            $0.itemTags.removeAll()
            $0.itemTags[ItemTag(itemID: uuid(10), tagID: uuid(100)).id] = ItemTag(itemID: uuid(10), tagID: uuid(100))
            $0.ui.selectedItemID = uuid(12)
        }
        await store.finish()
    }

    @Test func searchIsDebouncedOnTheTestClock() async {
        let clock = TestClock()
        let store = makeStore(clock: clock)
        await store.send(.search(.textChanged("m"))) { $0.ui.searchText = "m" }
        await clock.waitForSleepers()
        await clock.advance(by: .milliseconds(100))
        await store.send(.search(.textChanged("mo"))) { $0.ui.searchText = "mo" }
        await clock.waitForSleepers()
        await clock.advance(by: .milliseconds(199))
        await store.send(.ui(.setFilter(.active))) { $0.ui.filter = .active }   // nothing applied yet
        await clock.advance(by: .milliseconds(1))
        await store.receive(.search(.apply("mo"))) { $0.ui.searchQuery = "mo" }
        #expect(store.state.visibleItems.map(\.title) == ["Call mom"])
        await store.finish()
    }

    @Test func clearingTheSearchCancelsTheDebounce() async {
        let clock = TestClock()
        let store = makeStore(clock: clock)
        await store.send(.search(.textChanged("milk"))) { $0.ui.searchText = "milk" }
        await clock.waitForSleepers()
        await store.send(.search(.clear)) { $0.ui.searchText = "" }
        await clock.advance(by: .seconds(1))
        await store.finish()   // no `.apply` was received
    }

    @Test func listsAndNavigation() async {
        let store = makeStore()
        await store.send(.lists(.add(id: uuid(3), name: "Home"))) {
            $0.lists[uuid(3)] = TodoList(id: uuid(3), name: "Home")
            $0.ui.currentListID = uuid(3)
            $0.ui.listCursor = 2
        }
        await store.send(.ui(.showScreen(.lists))) { $0.ui.screen = .lists }
        await store.send(.ui(.moveCursor(-1))) { $0.ui.listCursor = 1 }
        await store.send(.lists(.select(id: uuid(2)))) { $0.ui.currentListID = uuid(2) }
        await store.send(.lists(.delete(id: uuid(2)))) {
            $0.items[uuid(20)] = nil
            $0.lists[uuid(2)] = nil
            $0.ui.currentListID = uuid(1)
        }
        await store.finish()
    }
}
