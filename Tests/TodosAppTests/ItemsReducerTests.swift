import Foundation
import Testing
@testable import TodosApp

/// Reducer tests, run directly on the reducer (written before SwiduxTesting's TestStore
/// landed); TestStoreTests covers the same features exhaustively with a TestStore, and
/// EffectTests checks effects through a real `Store`.
@Suite struct ItemsReducerTests {
    @Test func addCreatesItemWithTagsAndSelectsIt() {
        var state = sampleState()
        state.apply(.items(.add(id: uuid(13), listID: uuid(1), title: "  Bake   bread ", tags: ["food", "#shop"])))
        #expect(state.items[uuid(13)] == TodoItem(id: uuid(13), listID: uuid(1), title: "Bake   bread", createdAt: fixedDate))
        #expect(state.tags(of: uuid(13)).map(\.name) == ["food", "shop"])
        #expect(state.tags.count == 2)   // "shop" reused, "food" created
        #expect(state.ui.selectedItemID == uuid(13))
    }

    @Test func addRejectsEmptyTitleAndUnknownList() {
        var state = sampleState()
        let before = state
        state.apply(.items(.add(id: uuid(13), listID: uuid(1), title: "   ")))
        state.apply(.items(.add(id: uuid(14), listID: uuid(99), title: "x")))
        #expect(state == before)
    }

    @Test func addRefusesOverLongTitlesInsteadOfCuttingThem() {
        var state = sampleState()
        state.apply(.items(.add(id: uuid(13), listID: uuid(1), title: String(repeating: "長", count: 10_000))))
        #expect(state.items[uuid(13)] == nil)
        state.apply(.items(.add(id: uuid(13), listID: uuid(1), title: String(repeating: "長", count: Limits.title))))
        #expect(state.items[uuid(13)]?.title.count == Limits.title)
    }

    @Test func editToggleAndSetDone() {
        var state = sampleState()
        state.apply(.items(.setTitle(id: uuid(10), title: "Buy oat milk 🥛")))
        state.apply(.items(.toggle(id: uuid(10))))
        state.apply(.items(.setDone(id: uuid(11), done: false)))
        #expect(state.items[uuid(10)]?.title == "Buy oat milk 🥛")
        #expect(state.items[uuid(10)]?.isDone == true)
        #expect(state.items[uuid(11)]?.isDone == false)
        state.apply(.items(.setTitle(id: uuid(10), title: "")))
        #expect(state.items[uuid(10)]?.title == "Buy oat milk 🥛")
    }

    @Test func deleteRemovesItemAndItsTagLinksAndMovesSelection() {
        var state = sampleState()
        state.ui.selectedItemID = uuid(10)
        state.apply(.items(.delete(id: uuid(10))))
        #expect(state.items[uuid(10)] == nil)
        #expect(state.itemTags.isEmpty)
        #expect(state.ui.selectedItemID == uuid(11))
    }

    @Test func moveReordersWithinTheList() {
        var state = sampleState()
        state.apply(.items(.move(id: uuid(12), offset: -1)))
        #expect(state.titles == ["Buy milk", "Call mom", "Write report", "Plan sprint"])
        state.apply(.items(.move(id: uuid(12), offset: -5)))
        #expect(state.titles == ["Call mom", "Buy milk", "Write report", "Plan sprint"])
        state.apply(.items(.move(id: uuid(12), offset: 1)))
        #expect(state.titles == ["Buy milk", "Call mom", "Write report", "Plan sprint"])
        state.apply(.items(.move(id: uuid(12), offset: 10)))   // stays within its list
        #expect(state.titles == ["Buy milk", "Write report", "Call mom", "Plan sprint"])
    }

    @Test func clearCompletedRemovesOnlyDoneItemsOfTheList() {
        var state = sampleState()
        state.apply(.items(.setDone(id: uuid(20), done: true)))
        state.apply(.items(.clearCompleted(listID: uuid(1))))
        #expect(state.titles == ["Buy milk", "Call mom", "Plan sprint"])
    }

    @Test func countsAndFilters() {
        var state = sampleState()
        #expect(state.counts == (3, 2, 1))
        state.apply(.ui(.setFilter(.active)))
        #expect(state.visibleItems.map(\.title) == ["Buy milk", "Call mom"])
        state.apply(.ui(.setFilter(.completed)))
        #expect(state.visibleItems.map(\.title) == ["Write report"])
        state.apply(.ui(.cycleFilter))
        #expect(state.ui.filter == .all)
        #expect(state.visibleItems.count == 3)
    }
}

@Suite struct TagsReducerTests {
    @Test func tagIsCreatedOnceAndReused() {
        var state = sampleState()
        state.apply(.tags(.add(itemID: uuid(12), name: "#Shop", tagID: uuid(101))))
        state.apply(.tags(.add(itemID: uuid(12), name: "family time", tagID: uuid(102))))
        state.apply(.tags(.add(itemID: uuid(12), name: "shop", tagID: uuid(103))))
        #expect(state.tags.map(\.name) == ["shop", "family-time"])
        #expect(state.tags(of: uuid(12)).map(\.name) == ["shop", "family-time"])
    }

    @Test func removingTheLastUseDeletesTheTag() {
        var state = sampleState()
        state.apply(.tags(.remove(itemID: uuid(10), tagID: uuid(100))))
        #expect(state.itemTags.isEmpty)
        #expect(state.tags.isEmpty)
    }

    @Test func clearRemovesEveryTagOfTheItem() {
        var state = sampleState()
        state.apply(.tags(.add(itemID: uuid(10), name: "food", tagID: uuid(101))))
        state.apply(.tags(.add(itemID: uuid(12), name: "food", tagID: uuid(102))))
        state.apply(.tags(.clear(itemID: uuid(10))))
        #expect(state.tags(of: uuid(10)).isEmpty)
        #expect(state.tags.map(\.name) == ["food"])
    }

    @Test func searchMatchesTitlesAndTags() {
        var state = sampleState()
        state.apply(.search(.apply("SHOP")))
        #expect(state.visibleItems.map(\.title) == ["Buy milk"])
        state.apply(.search(.apply("mom")))
        #expect(state.visibleItems.map(\.title) == ["Call mom"])
        state.apply(.search(.clear))
        #expect(state.visibleItems.count == 3)
    }
}

@Suite struct ListsReducerTests {
    @Test func addSelectsTheNewListAndRejectsDuplicates() {
        var state = sampleState()
        state.apply(.lists(.add(id: uuid(3), name: "Home")))
        #expect(state.lists.map(\.name) == ["Inbox", "Work", "Home"])
        #expect(state.ui.currentListID == uuid(3))
        state.apply(.lists(.add(id: uuid(4), name: "home")))
        #expect(state.lists.count == 3)
    }

    @Test func renameKeepsNamesUnique() {
        var state = sampleState()
        state.apply(.lists(.rename(id: uuid(2), name: "Office")))
        state.apply(.lists(.rename(id: uuid(2), name: "inbox")))
        #expect(state.lists[uuid(2)]?.name == "Office")
    }

    @Test func deleteCascadesToItemsAndUnusedTags() {
        var state = sampleState()
        state.apply(.lists(.delete(id: uuid(1))))
        #expect(state.lists.map(\.name) == ["Work"])
        #expect(state.titles == ["Plan sprint"])
        #expect(state.itemTags.isEmpty && state.tags.isEmpty)
        #expect(state.ui.currentListID == uuid(2))
    }

    @Test func selectSwitchesTheCurrentList() {
        var state = sampleState()
        state.apply(.lists(.select(id: uuid(2))))
        #expect(state.currentList?.name == "Work")
        #expect(state.visibleItems.map(\.title) == ["Plan sprint"])
        state.apply(.lists(.select(id: uuid(99))))
        #expect(state.currentList?.name == "Work")
    }
}

@Suite struct UIReducerTests {
    @Test func cursorMovesWithinVisibleItems() {
        var state = sampleState()
        #expect(state.selectedItem?.title == "Buy milk")
        state.apply(.ui(.moveCursor(1)))
        #expect(state.selectedItem?.title == "Write report")
        state.apply(.ui(.moveCursor(100)))
        #expect(state.selectedItem?.title == "Call mom")
        state.apply(.ui(.moveCursor(-100)))
        #expect(state.selectedItem?.title == "Buy milk")
    }

    @Test func navigationBetweenScreens() {
        var state = sampleState()
        state.apply(.ui(.showScreen(.lists)))
        #expect(state.ui.screen == .lists && state.ui.listCursor == 0)
        state.apply(.ui(.moveCursor(1)))
        #expect(state.ui.listCursor == 1)
        state.apply(.ui(.toggleHelp))
        #expect(state.ui.screen == .help)
        state.apply(.ui(.toggleHelp))
        #expect(state.ui.screen == .lists)
    }

    @Test func inputLine() {
        var state = sampleState()
        state.apply(.ui(.beginInput(.editItem(uuid(10)), draft: "Buy milk")))
        state.apply(.ui(.draftChanged("Buy milk!")))
        #expect(state.ui.input == .editItem(uuid(10)) && state.ui.draft == "Buy milk!")
        state.apply(.ui(.endInput))
        #expect(state.ui.input == nil && state.ui.draft.isEmpty)
    }
}
