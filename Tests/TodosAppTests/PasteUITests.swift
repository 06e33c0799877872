import Foundation
import Testing

/// Pasting into the running UI on a real pseudo-terminal: with bracketed paste and without,
/// the lines are items and never key commands; an over-long paste is refused with the limit.
extension ProcessTests { @Suite struct PasteUITests {
    static let lines = "buy food\rdelete old files\rquit smoking\rwater plants\r"

    @Test func bracketedPasteOfLinesAddsOneItemEachAndSaysHowMany() async throws {
        let box = try Sandbox()
        _ = try await box.add("precious item")
        let session = try await TerminalSession.start(box: box)
        await session.waitFor("the item screen") { $0.text.contains("precious item") }
        #expect(session.rawOutput.contains("\u{1B}[?2004h"))
        await session.type("a")
        await session.waitFor("the input line") { $0.lines[22].contains("New item:") }
        await session.type("\u{1B}[200~" + Self.lines + "\u{1B}[201~")
        await session.waitFor("four new items and the count") {
            $0.items.count == 5 && $0.lines[23].contains("Added 4 items from the pasted lines")
        }
        await session.type("q")
        #expect(await session.waitForExit() == 0)
        #expect(session.rawOutput.contains("\u{1B}[?2004l"))
        #expect(try await box.listJSON().map(\.title)
                == ["precious item", "buy food", "delete old files", "quit smoking", "water plants"])
    }

    @Test func unbracketedPasteOfLinesIsStillTextNotCommands() async throws {
        let box = try Sandbox()
        _ = try await box.add("precious item")
        let session = try await TerminalSession.start(box: box)
        await session.waitFor("the item screen") { $0.text.contains("precious item") }
        await session.type("a")
        await session.waitFor("the input line") { $0.lines[22].contains("New item:") }
        await session.type(Self.lines)   // one write, as a terminal without bracketed paste sends it
        await session.waitFor("four new items") { $0.items.count == 5 && $0.lines[23].contains("Added 4 items") }
        await session.type("q")
        #expect(await session.waitForExit() == 0)
        #expect(try await box.listJSON().map(\.title)
                == ["precious item", "buy food", "delete old files", "quit smoking", "water plants"])
    }

    @Test(arguments: [true, false])
    func overLongPasteIsRefusedWithTheLimitNamedAndNothingSaved(bracketed: Bool) async throws {
        let box = try Sandbox()
        let session = try await TerminalSession.start(box: box)
        await session.waitFor("the item screen") { $0.text.contains("No items yet") }
        await session.type("a")
        await session.waitFor("the input line") { $0.lines[22].contains("New item:") }
        let long = String(repeating: "x", count: 600)
        await session.type(bracketed ? "\u{1B}[200~" + long + "\r\u{1B}[201~" : long + "\r")
        await session.waitFor("the refusal naming the limit") {
            $0.lines[23].contains("limited to 500 characters (this one has 600)") && $0.lines[22].contains("New item: …xxx")
        }
        await session.type("\u{1B}")
        await session.type("q")
        #expect(await session.waitForExit() == 0)
        #expect(try await box.listJSON().isEmpty)
    }
} }
