import Foundation
import Testing
@testable import TodosApp
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A tiny terminal emulator: enough of VT100 (cursor position, erase display/line) to
/// rebuild the screen the app draws.
struct VirtualScreen {
    var cells: [[String]]
    var row = 0, column = 0
    let size: TerminalIO.Size

    init(size: TerminalIO.Size) {
        self.size = size
        cells = Array(repeating: Array(repeating: " ", count: size.columns), count: size.rows)
    }

    mutating func feed(_ text: String) {
        var scalars = Array(text)[...]
        while let character = scalars.popFirst() {
            if character == "\u{1B}" {
                guard scalars.first == "[" else { scalars = scalars.dropFirst(); continue }
                scalars = scalars.dropFirst()
                var parameters = ""
                while let next = scalars.first, !next.isLetter, next != "~" { parameters.append(next); scalars = scalars.dropFirst() }
                guard let final = scalars.popFirst() else { return }
                let numbers = parameters.split(separator: ";").map { Int($0) ?? 1 }
                switch final {
                case "H": row = (numbers.first ?? 1) - 1; column = (numbers.count > 1 ? numbers[1] : 1) - 1
                case "J" where parameters == "2":
                    cells = Array(repeating: Array(repeating: " ", count: size.columns), count: size.rows)
                case "K": if row < size.rows { for c in column..<size.columns { cells[row][c] = " " } }
                default: break
                }
                continue
            }
            if character == "\r" || character == "\n" { continue }
            let width = DisplayWidth.of(character)
            guard row < size.rows, column < size.columns else { continue }
            cells[row][column] = String(character)
            if width == 2, column + 1 < size.columns { cells[row][column + 1] = "" }
            column += max(width, 0)
        }
    }

    var lines: [String] { cells.map { $0.joined() } }
    /// The item rows (between the two rules), trailing spaces removed, empty rows dropped.
    var items: [String] {
        lines.dropFirst(3).prefix(size.rows - 6).map { String($0.reversed().drop { $0 == " " }.reversed()) }.filter { !$0.isEmpty }
    }
    var text: String { lines.joined(separator: "\n") }
}

extension ProcessTests { @Suite struct TerminalUITests {
    @Test func addTagToggleSearchHelpAndQuitThroughTheKeyboard() async throws {
        let box = try Sandbox()
        let session = try await TerminalSession.start(box: box)
        await session.waitFor("the empty item screen") { $0.text.contains("No items yet") }
        await session.type("a")
        await session.waitFor("the input line") { $0.lines[22].contains("New item:") }
        await session.type("Pay rent #home")
        await session.type("\r")
        await session.waitFor("the new item") { $0.text.contains("[ ] Pay rent  #home") }
        await session.type("a")
        await session.type("Call mom 📞\r")
        await session.waitFor("the second item") { $0.text.contains("▸ [ ] Call mom 📞") }
        await session.type(" ")
        await session.waitFor("the toggled item") { $0.text.contains("▸ [x] Call mom 📞") }
        #expect(session.screen.lines[0].hasSuffix("1 active · 1 done "))
        await session.type("/")
        await session.type("rent")
        await session.waitFor("the search result") { $0.items.count == 1 && $0.items[0].hasSuffix("[ ] Pay rent  #home") }
        await session.type("\u{1B}")
        await session.waitFor("the cleared search") { $0.text.contains("Call mom") }
        await session.type("\u{1B}[A\u{1B}[99~\u{1B}[<0;1;1M")   // arrow up plus junk sequences
        await session.waitFor("the moved highlight") { $0.text.contains("▸ [ ] Pay rent") }
        await session.type("?")
        await session.waitFor("the help screen") { $0.lines[0].contains("Help") }
        await session.type("x")
        await session.waitFor("the item screen again") { $0.lines[0].contains("Inbox") }
        await session.type("u")
        await session.waitFor("the undone toggle") { $0.text.contains("[ ] Call mom") }
        session.resize(columns: 100, rows: 30)
        await session.waitFor("the screen redrawn at 100×30") {
            $0.lines[0].hasSuffix("2 active · 0 done ") && $0.lines[27] == String(repeating: "─", count: 100)
        }
        await session.type("q")
        #expect(await session.waitForExit() == 0)

        let items = try await box.listJSON()
        #expect(items.map(\.title) == ["Pay rent", "Call mom 📞"])
        #expect(items.map(\.tags) == [["home"], []])
        #expect(items.map(\.done) == [false, false])
    }

    @Test func databaseFileMovedAwayIsOnTheStatusLineAndNothingIsLost() async throws {
        let box = try Sandbox()
        let session = try await TerminalSession.start(box: box)
        await session.waitFor("the item screen") { $0.text.contains("No items yet") }
        try FileManager.default.moveItem(atPath: box.database, toPath: box.database + ".away")
        await session.type("a")
        await session.type("Kept while away\r")
        await session.waitFor("the status line naming the lost file") {
            $0.lines[23].contains("Saving failed: the database file was deleted or replaced")
        }
        try FileManager.default.moveItem(atPath: box.database + ".away", toPath: box.database)
        await session.type("q")
        #expect(await session.waitForExit() == 0)
        #expect(try await box.listJSON().map(\.title) == ["Kept while away"])
    }

    @Test func sigtermQuitsGracefullyAndFlushes() async throws {
        let box = try Sandbox()
        let session = try await TerminalSession.start(box: box)
        await session.waitFor("the item screen") { $0.text.contains("No items yet") }
        await session.type("a")
        await session.type("Saved on SIGTERM\r")
        await session.waitFor("the item") { $0.text.contains("Saved on SIGTERM") }
        session.signal(SIGTERM)
        #expect(await session.waitForExit() == 0)
        #expect(try await box.listJSON().map(\.title) == ["Saved on SIGTERM"])
    }
}
}
