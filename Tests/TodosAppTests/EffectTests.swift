import Clocks
import Foundation
import Testing
@testable import TodosApp

@MainActor
@Suite(.timeLimit(.minutes(1))) struct SearchDebounceTests {
    func makeStore(clock: CountingClock) -> Store<AppState, AppAction> {
        Store(initialState: sampleState(), reducer: AppReducer(), environment: testEnvironment(clock: clock))
    }

    @Test func queryAppliesOnlyAfterTheDebounce() async {
        let clock = CountingClock()
        let store = makeStore(clock: clock)
        store.send(.search(.textChanged("m")))
        store.send(.search(.textChanged("mi")))
        store.send(.search(.textChanged("mil")))
        await clock.waitForSleeps(3)
        #expect(store.ui.searchText == "mil")
        #expect(store.ui.searchQuery == "")
        await clock.advance(by: .milliseconds(199))
        #expect(store.ui.searchQuery == "")
        await clock.advance(by: .milliseconds(1))
        #expect(await eventually { store.ui.searchQuery == "mil" })
        #expect(store.visibleItems.map(\.title) == ["Buy milk"])
        // The two earlier keystrokes were cancelled: nothing else is applied later.
        await clock.advance(by: .seconds(10))
        #expect(store.ui.searchQuery == "mil")
        #expect(await eventually { store.runningEffectCount == 0 })
    }

    @Test func eachKeystrokeRestartsTheWindow() async {
        let clock = CountingClock()
        let store = makeStore(clock: clock)
        store.send(.search(.textChanged("c")))
        await clock.waitForSleeps(1)
        await clock.advance(by: .milliseconds(150))
        store.send(.search(.textChanged("ca")))
        await clock.waitForSleeps(2)
        await clock.advance(by: .milliseconds(150))
        #expect(store.ui.searchQuery == "")
        await clock.advance(by: .milliseconds(50))
        #expect(await eventually { store.ui.searchQuery == "ca" })
    }

    @Test func clearCancelsThePendingSearch() async {
        let clock = CountingClock()
        let store = makeStore(clock: clock)
        store.send(.search(.textChanged("milk")))
        await clock.waitForSleeps(1)
        store.send(.search(.clear))
        #expect(await eventually { store.runningEffectCount == 0 })
        await clock.advance(by: .seconds(10))
        #expect(store.ui.searchText == "" && store.ui.searchQuery == "")
    }
}

@MainActor
@Suite(.timeLimit(.minutes(1))) struct StatusEventTests {
    @Test func domainActionsEmitOneShotStatusMessages() async {
        let events = EventChannel<AppEvent>()
        let store = Store(initialState: sampleState(), reducer: AppReducer(), environment: testEnvironment(events: events))
        var iterator = events.events.makeAsyncIterator()
        await store.send(.items(.delete(id: uuid(10)))).finish()
        #expect(await iterator.next() == .status("Deleted “Buy milk” (u: undo)"))
        await store.send(.items(.add(id: uuid(13), listID: uuid(1), title: " "))).finish()
        #expect(await iterator.next() == .error("A title can't be empty"))
        await store.send(.items(.clearCompleted(listID: uuid(1)))).finish()
        #expect(await iterator.next() == .status("Cleared 1 completed item"))
    }
}

@MainActor
@Suite(.timeLimit(.minutes(1))) struct UndoTests {
    @Test func undoAndRedoDomainChangesButNotNavigation() async {
        let store = Store(initialState: sampleState(), reducer: AppReducer(), environment: testEnvironment(),
                          undo: UndoMiddleware(maxDepth: 50, recording: \.lists, \.tags, \.items, \.itemTags))
        store.send(.items(.toggle(id: uuid(10))))
        store.send(.ui(.moveCursor(1)))           // not an undo step
        store.send(.search(.apply("x")))          // not an undo step
        store.send(.items(.delete(id: uuid(12))))
        #expect(store.items.count == 3)
        store.undo()
        #expect(store.items[uuid(12)] != nil)
        store.undo()
        #expect(store.items[uuid(10)]?.isDone == false)
        #expect(!store.canUndo)
        store.redo()
        #expect(store.items[uuid(10)]?.isDone == true)
        #expect(store.canRedo)
    }

    @Test func keyMapClosesTheInputBeforeTheChangeSoUndoDoesNotReopenIt() async {
        let app = try! TodoApp(database: AppDatabase.inMemory(), uuid: IDSequence().callAsFunction, now: { fixedDate })
        app.perform(.send(.ui(.beginInput(.addItem))))
        app.perform(.send(.ui(.draftChanged("Water plants #home"))))
        for command in KeyMap.commands(for: .enter, state: app.store.state, makeID: app.environment.uuid) {
            app.perform(command)
        }
        #expect(app.store.items.map(\.title) == ["Water plants"])
        #expect(app.store.state.tags(of: app.store.items[0].id).map(\.name) == ["home"])
        app.perform(.undo)
        #expect(app.store.items.isEmpty)
        #expect(app.store.ui.input == nil)
        app.perform(.redo)
        #expect(app.store.items.map(\.title) == ["Water plants"])
    }

    @Test func undoOfAddItemKeepsTheListAndFilterChosenSince() async throws {
        let ids = IDSequence()
        let app = try TodoApp(database: AppDatabase.inMemory(), uuid: ids.callAsFunction, now: { fixedDate })
        let inbox = try #require(app.store.state.ui.currentListID)
        app.perform(.send(.lists(.add(id: uuid(50), name: "Work"))))
        app.perform(.send(.lists(.select(id: inbox))))
        app.perform(.send(.items(.add(id: uuid(51), listID: inbox, title: "Milk"))))
        app.perform(.send(.lists(.select(id: uuid(50)))))   // navigation after the add
        app.perform(.send(.ui(.setFilter(.completed))))
        app.perform(.undo)
        #expect(app.store.items[uuid(51)] == nil)
        #expect(app.store.state.ui.currentListID == uuid(50))
        #expect(app.store.state.ui.filter == .completed)
        app.perform(.redo)
        #expect(app.store.items[uuid(51)]?.title == "Milk")
        #expect(app.store.state.ui.currentListID == uuid(50))
        #expect(app.store.state.ui.filter == .completed)
    }
}
