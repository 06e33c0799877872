import Clocks
import Foundation
import Testing
@testable import TodosApp

@MainActor
@Suite struct SearchDebounceTests {
    func makeStore(clock: TestClock<Duration>) -> Store<AppState, AppAction> {
        Store(initialState: sampleState(), reducer: AppReducer(), environment: testEnvironment(clock: clock))
    }

    @Test func queryAppliesOnlyAfterTheDebounce() async {
        let clock = TestClock()
        let store = makeStore(clock: clock)
        store.send(.search(.textChanged("m")))
        store.send(.search(.textChanged("mi")))
        let last = store.send(.search(.textChanged("mil")))
        #expect(store.ui.searchText == "mil")
        #expect(store.ui.searchQuery == "")
        await clock.advance(by: .milliseconds(199))
        #expect(store.ui.searchQuery == "")
        await clock.advance(by: .milliseconds(1))
        await last.finish()
        #expect(store.ui.searchQuery == "mil")
        #expect(store.visibleItems.map(\.title) == ["Buy milk"])
        // The two earlier keystrokes were cancelled: nothing else is applied later.
        await clock.run(timeout: .seconds(10))
        #expect(store.ui.searchQuery == "mil")
        #expect(store.runningEffectCount == 0)
    }

    @Test func eachKeystrokeRestartsTheWindow() async {
        let clock = TestClock()
        let store = makeStore(clock: clock)
        store.send(.search(.textChanged("c")))
        await clock.advance(by: .milliseconds(150))
        let last = store.send(.search(.textChanged("ca")))
        await clock.advance(by: .milliseconds(150))
        #expect(store.ui.searchQuery == "")
        await clock.advance(by: .milliseconds(50))
        await last.finish()
        #expect(store.ui.searchQuery == "ca")
    }

    @Test func clearCancelsThePendingSearch() async {
        let clock = TestClock()
        let store = makeStore(clock: clock)
        store.send(.search(.textChanged("milk")))
        await store.send(.search(.clear)).finish()
        await clock.run(timeout: .seconds(10))
        #expect(store.ui.searchText == "" && store.ui.searchQuery == "")
        #expect(store.runningEffectCount == 0)
    }
}

@MainActor
@Suite struct StatusEventTests {
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
@Suite struct UndoTests {
    @Test func undoAndRedoDomainChangesButNotNavigation() async {
        let store = Store(initialState: sampleState(), reducer: AppReducer(), environment: testEnvironment(),
                          undo: UndoMiddleware(maxDepth: 50))
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
}
