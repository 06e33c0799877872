import Foundation
import Testing
@testable import TodosApp

/// Issue 18 items 6, 11, 12 and 13 on the terminal UI side (pure: reducers, key map, render).
@Suite(.timeLimit(.minutes(1))) struct HostileUITests {
    func render(_ state: AppState, _ columns: Int, _ rows: Int) -> [String] {
        Render.screen(state, size: TerminalIO.Size(columns: columns, rows: rows))
    }

    /// A list "Many" with `count` items "item 0" … selected.
    func manyItems(_ count: Int) -> AppState {
        var state = AppState(lists: [TodoList(id: uuid(1), name: "Many")])
        for index in 0..<count {
            state.items[uuid(100 + index)] = TodoItem(id: uuid(100 + index), listID: uuid(1), title: "item \(index)", createdAt: fixedDate)
        }
        state.ui.currentListID = uuid(1)
        return state
    }

    // MARK: Item 11: the selection is always on screen; a window too small says so

    @Test(arguments: [(60, 12), (40, 8), (21, 7), (30, 9), (80, 24)])
    func selectedItemIsAlwaysVisible(columns: Int, rows: Int) {
        for count in [1, rows - 6, rows - 5, 12, 30] where count > 0 {
            var state = manyItems(count)
            for index in 0..<count {
                state.ui.selectedItemID = uuid(100 + index)
                let lines = render(state, columns, rows)
                #expect(lines.count == rows)
                let marked = lines.filter { $0.hasPrefix(" ▸ ") }
                #expect(marked.count == 1, "\(columns)×\(rows), \(count) items, selected \(index): \(lines)")
                #expect(marked.first?.contains("item \(index)") == true, "\(columns)×\(rows), \(count) items, selected \(index): \(lines)")
            }
        }
    }

    @Test(arguments: [(20, 6), (19, 24), (80, 5), (10, 3), (80, 1)])
    func windowTooSmallForOneRowSaysSo(columns: Int, rows: Int) {
        let lines = render(manyItems(12), columns, rows)
        #expect(lines.count == rows)
        #expect(lines.joined().contains("small") || lines.joined().contains("…"), "\(lines)")
        for line in lines { #expect(DisplayWidth.of(line) == columns) }
    }

    // MARK: Item 12: widths with control characters in names

    @Test func controlCharactersInNamesKeepWidthsRight() {
        var state = AppState(lists: [TodoList(id: uuid(1), name: "Evil\u{1B}[2J\u{7}\u{1B}[2J\u{7}")])
        state.items[uuid(2)] = TodoItem(id: uuid(2), listID: uuid(1), title: "T\u{1B}\u{1B}\u{1B}\u{1B}", createdAt: fixedDate)
        state.tags[uuid(3)] = Tag(id: uuid(3), name: "x\u{7}\u{7}")
        state.itemTags[ItemTag(itemID: uuid(2), tagID: uuid(3)).id] = ItemTag(itemID: uuid(2), tagID: uuid(3))
        state.ui.currentListID = uuid(1)
        for columns in [45, 50, 80] {
            let lines = render(state, columns, 12)
            for line in lines {
                #expect(DisplayWidth.of(line) == columns, "\(line)")
                #expect(!line.unicodeScalars.contains { ControlCharacters.isControl($0) })
            }
            #expect(lines[0].hasSuffix("1 active · 0 done "), "\(columns): \(lines[0])")
            #expect(lines[3].contains("T????"), "\(lines[3])")
            state.ui.screen = .lists
            let listLines = render(state, columns, 12)
            for line in listLines { #expect(DisplayWidth.of(line) == columns, "\(line)") }
            #expect(listLines[3].contains("1 active · 0 done"), "\(listLines[3])")
            state.ui.screen = .items
        }
    }

    // MARK: Items 6 and 13 in the UI

    @MainActor
    @Test func typingPastTheLimitIsKeptAndRefusedOnEnterWithTheLimitNamed() async throws {
        let app = try TodoApp(database: AppDatabase.inMemory(), uuid: IDSequence().callAsFunction, now: { fixedDate })
        let events = app.events.events
        app.perform(.send(.ui(.beginInput(.addItem))))
        let long = String(repeating: "a", count: Limits.title) + "b"
        app.perform(.send(.ui(.draftChanged(long))))
        #expect(app.store.ui.draft == long)   // never cut: kept for editing
        let footer = Render.screen(app.store.state, size: TerminalIO.Size(columns: 100, rows: 24)).last ?? ""
        #expect(footer.contains("limited to 500 characters (this one has 501)"), "\(footer)")
        // Enter refuses it, says why, and leaves the text in the open input line.
        for command in KeyMap.commands(for: .enter, state: app.store.state, makeID: app.environment.uuid) { app.perform(command) }
        #expect(app.store.items.isEmpty)
        #expect(app.store.ui.input == .addItem)
        #expect(app.store.ui.draft == long)
        var iterator = events.makeAsyncIterator()
        #expect(await iterator.next() == .error("A title is limited to 500 characters (this one has 501)"))
        // Shortened, it is taken.
        app.perform(.send(.ui(.draftChanged(String(long.dropLast())))))
        for command in KeyMap.commands(for: .enter, state: app.store.state, makeID: app.environment.uuid) { app.perform(command) }
        #expect(app.store.items.map(\.title) == [String(repeating: "a", count: Limits.title)])
    }

    @MainActor
    @Test func overLongListNameIsRefusedAndTheTypedTextKept() async throws {
        let app = try TodoApp(database: AppDatabase.inMemory(), uuid: IDSequence().callAsFunction, now: { fixedDate })
        let events = app.events.events
        app.perform(.send(.ui(.showScreen(.lists))))
        app.perform(.send(.ui(.beginInput(.addList))))
        let name = String(repeating: "n", count: 120)
        app.perform(.send(.ui(.draftChanged(name))))
        for command in KeyMap.commands(for: .enter, state: app.store.state, makeID: app.environment.uuid) { app.perform(command) }
        #expect(app.store.lists.map(\.name) == ["Inbox"])
        #expect(app.store.ui.input == .addList)
        #expect(app.store.ui.draft == name)
        var iterator = events.makeAsyncIterator()
        #expect(await iterator.next() == .error("A list name is limited to 100 characters (this one has 120)"))
    }

    @MainActor
    @Test func existingListIsNamedAsItIsNotAsTyped() async throws {
        var state = sampleState()   // has "Work"
        state.ui.input = .addList
        #expect(KeyMap.refusal(.addList, text: "work", state: state) == "A list named “Work” exists")
    }

    @MainActor
    @Test func overLongTitlesNamesAndTagsAreRefusedNotCut() async throws {
        var state = sampleState()
        let before = state
        state.apply(.items(.add(id: uuid(50), listID: uuid(1), title: String(repeating: "x", count: 501))))
        state.apply(.items(.setTitle(id: uuid(10), title: String(repeating: "x", count: 501))))
        state.apply(.lists(.add(id: uuid(51), name: String(repeating: "n", count: 101))))
        state.apply(.lists(.rename(id: uuid(2), name: String(repeating: "n", count: 101))))
        state.apply(.tags(.add(itemID: uuid(10), name: String(repeating: "t", count: 101), tagID: uuid(52))))
        #expect(state == before)
        // A refusal is said (an effect emitting an error), not silent.
        var copy = before
        let effect = AppReducer().reduce(state: &copy, action: .lists(.add(id: uuid(51), name: String(repeating: "n", count: 101))), environment: testEnvironment())
        #expect(effect != nil)
    }

    @MainActor
    @Test func tagsAloneAreNotDroppedSilently() async throws {
        let app = try TodoApp(database: AppDatabase.inMemory(), uuid: IDSequence().callAsFunction, now: { fixedDate })
        let events = app.events.events
        app.perform(.send(.ui(.beginInput(.addItem))))
        app.perform(.send(.ui(.draftChanged("#urgent #home"))))
        for command in KeyMap.commands(for: .enter, state: app.store.state, makeID: app.environment.uuid) { app.perform(command) }
        #expect(app.store.items.isEmpty)
        var iterator = events.makeAsyncIterator()
        let event = await iterator.next()
        #expect(event == .error("A title can't be empty (tags alone: #urgent #home)"))
    }

    @Test func listNamesShareOneNormalisation() {
        #expect(ListName.key(" Home") == ListName.key("home"))
        #expect(ListName.key("Ho\nme") == ListName.key("ho me"))
        #expect(ListName.key("Cafe\u{301}") == ListName.key("CAFÉ"))
        var state = sampleState()
        state.apply(.lists(.add(id: uuid(60), name: "  work\n")))
        #expect(state.lists.count == 2)   // "Work" exists: refused
        #expect(state.list(named: " WORK ")?.id == uuid(2))
    }
}
