import Foundation
import Testing
@testable import TodosApp

@Suite struct RenderTests {
    let size = TerminalIO.Size(columns: 80, rows: 24)

    func trimmed(_ lines: [String]) -> [String] {
        lines.map { String($0.reversed().drop { $0 == " " }.reversed()) }
    }

    func expectExactSize(_ lines: [String], _ size: TerminalIO.Size) {
        #expect(lines.count == size.rows)
        for line in lines { #expect(DisplayWidth.of(line) == size.columns, "\(line)") }
    }

    @Test func itemScreenAt80x24() {
        var state = sampleState()
        state.apply(.tags(.add(itemID: uuid(12), name: "family", tagID: uuid(101))))
        state.apply(.ui(.moveCursor(1)))
        let lines = Render.screen(state, size: size, status: "Tagged #family")
        expectExactSize(lines, size)
        let rule = String(repeating: "─", count: 80)
        let expected = [
            " Todos ▸ Inbox                                                2 active · 1 done",
            " Lists: [Inbox]  Work",
            rule,
            "   [ ] Buy milk  #shop",
            " ▸ [x] Write report",
            "   [ ] Call mom  #family",
        ] + Array(repeating: "", count: 15) + [
            rule,
            " Filter: all · 3 shown of 3",
            " Tagged #family",
        ]
        #expect(trimmed(lines) == expected)
    }

    @Test func unicodeTitlesAreCutByDisplayWidth() {
        var state = sampleState()
        state.items.modify(uuid(10)) { $0.title = "日本語のとても長いタイトル" + String(repeating: "長", count: 60) }
        state.items.modify(uuid(11)) { $0.title = "Party 🎉👨‍👩‍👧 café\u{301} ok" }
        state.items.modify(uuid(12)) { $0.title = "Evil \u{1B}[2J title\u{7}" }
        let lines = Render.screen(state, size: size)
        expectExactSize(lines, size)
        #expect(lines[3].hasPrefix(" ▸ [ ] 日本語のとても長いタイトル長"))
        #expect(lines[3].contains("…  #shop"))
        #expect(trimmed(lines)[4] == "   [x] Party 🎉👨‍👩‍👧 café\u{301} ok")
        #expect(trimmed(lines)[5] == "   [ ] Evil ?[2J title?")   // control characters never reach the terminal
    }

    @Test func searchLineShowsTheEndOfLongInput() {
        var state = sampleState()
        state.apply(.ui(.beginInput(.addItem)))
        state.apply(.ui(.draftChanged(String(repeating: "a", count: 100) + "漢字END")))
        let lines = Render.screen(state, size: size)
        expectExactSize(lines, size)
        #expect(trimmed(lines)[22].hasPrefix(" New item: …"))
        #expect(trimmed(lines)[22].hasSuffix("漢字END▏"))
        #expect(trimmed(lines)[23] == " ⏎ confirm · esc cancel")
    }

    @Test func listScreenAndHelpScreen() {
        var state = sampleState()
        state.apply(.ui(.showScreen(.lists)))
        state.apply(.ui(.moveCursor(1)))
        let lists = trimmed(Render.screen(state, size: size))
        #expect(lists[0] == " Todos ▸ Lists                                                          2 lists")
        #expect(lists[3] == "   Inbox *                                                    2 active · 1 done")
        #expect(lists[4] == " ▸ Work                                                       1 active · 0 done")
        state.apply(.ui(.toggleHelp))
        let help = trimmed(Render.screen(state, size: size))
        #expect(help[0] == " Todos ▸ Help")
        #expect(help[3...].contains { $0.contains("u  undo") })
    }

    @Test func emptyStatesAndManyItems() {
        var state = AppState(lists: [TodoList(id: uuid(1), name: "Inbox")])
        #expect(trimmed(Render.screen(state, size: size))[3] == "   No items yet. Press a to add one.")
        for n in 0..<40 { state.items[uuid(100 + n)] = TodoItem(id: uuid(100 + n), listID: uuid(1), title: "Item \(n)", createdAt: fixedDate) }
        state.ui.selectedItemID = uuid(139)
        let lines = trimmed(Render.screen(state, size: size))
        #expect(lines[20] == " ▸ [ ] Item 39")   // scrolled so the selection is visible
        state.ui.selectedItemID = uuid(100)
        // 17 rows of items, then the count of the 23 below (no item hidden behind it).
        #expect(trimmed(Render.screen(state, size: size))[19] == "   [ ] Item 16")
        #expect(trimmed(Render.screen(state, size: size))[20] == "   … 23 more")
    }

    @Test func anySizeNeverCrashes() {
        let state = sampleState()
        for columns in [0, 1, 5, 19, 20, 21, 40, 200] {
            for rows in [0, 1, 5, 6, 7, 24, 60] {
                let lines = Render.screen(state, size: .init(columns: columns, rows: rows))
                #expect(lines.count == rows)
                for line in lines { #expect(DisplayWidth.of(line) == columns) }
            }
        }
    }

    @Test func screenBufferWritesOnlyChangedLines() {
        var buffer = ScreenBuffer()
        let small = TerminalIO.Size(columns: 3, rows: 2)
        #expect(buffer.update(to: ["abc", "def"], size: small) == "\u{1B}[0m\u{1B}[2J\u{1B}[1;1H\u{1B}[0mabc\u{1B}[0m\u{1B}[K\u{1B}[2;1H\u{1B}[0mdef\u{1B}[0m\u{1B}[K")
        #expect(buffer.update(to: ["abc", "xyz"], size: small) == "\u{1B}[2;1H\u{1B}[0mxyz\u{1B}[0m\u{1B}[K")
        #expect(buffer.update(to: ["abc", "xyz"], size: small) == "")
    }
}
