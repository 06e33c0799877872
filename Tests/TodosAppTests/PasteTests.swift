import Foundation
import Testing
@testable import TodosApp

/// Pasted text is text for the field it lands in, never key commands: bracketed pastes
/// (decoder and key map) and bursts of fast keys from terminals without it (TypingBurst).
@Suite(.timeLimit(.minutes(1))) struct PasteTests {
    static let lines = "buy food\rdelete old files\rquit smoking\rwater plants\r"

    @MainActor
    func app() throws -> TodoApp {
        try TodoApp(database: AppDatabase.inMemory(), uuid: IDSequence().callAsFunction, now: { fixedDate })
    }

    @MainActor
    func perform(_ commands: [Command], on app: TodoApp) {
        for command in commands { #expect(app.perform(command), "\(command) quit the app") }
    }

    // MARK: Decoder

    @Test func bracketedPasteIsOneEventEvenSplitAcrossReads() {
        var decoder = KeyDecoder()
        #expect(decoder.feed(Array("x\u{1B}[200~a\rq\u{1B}[A".utf8)) == [.character("x")])
        #expect(decoder.feed(Array("d\u{1B}[2".utf8)) == [])   // the end marker split across reads
        #expect(decoder.feed(Array("01~q".utf8)) == [.paste("a\rq\u{1B}[Ad"), .character("q")])
        #expect(decoder.feed(Array("\u{1B}[200~\u{1B}[201~".utf8)) == [.paste("")])
    }

    @Test func oversizedPasteIsRefusedWholeWithItsSize() {
        var decoder = KeyDecoder()
        let body = [UInt8](repeating: UInt8(ascii: "a"), count: KeyDecoder.maxPaste + 10)
        let events = decoder.feed(Array("\u{1B}[200~".utf8)) + decoder.feed(body) + decoder.feed(Array("\u{1B}[201~z".utf8))
        #expect(events == [.oversizedPaste(bytes: KeyDecoder.maxPaste + 10), .character("z")])
    }

    @Test func fullScreenTurnsBracketedPasteOnAndOff() {
        #expect(TerminalIO.enterSequence.contains("\u{1B}[?2004h"))
        #expect(TerminalIO.leaveSequence.contains("\u{1B}[?2004l"))
    }

    // MARK: Bracketed paste in the key map

    @MainActor
    @Test func pastedLinesInTheAddFieldAreOneItemEachAndNeverCommands() async throws {
        let app = try app()
        _ = try await app.list(named: nil, create: false)
        perform([.send(.items(.add(id: uuid(7), listID: app.store.lists[0].id, title: "precious item")))], on: app)
        let events = app.events.events
        perform([.send(.ui(.beginInput(.addItem)))], on: app)
        perform(KeyMap.commands(for: .paste(Self.lines), state: app.store.state, makeID: app.environment.uuid), on: app)
        #expect(app.store.items.map(\.title) == ["precious item", "buy food", "delete old files", "quit smoking", "water plants"])
        #expect(app.store.ui.input == nil)
        var statuses: [AppEvent] = []
        for await event in events {
            statuses.append(event)
            if event == .status("Added 4 items from the pasted lines") { break }
        }
        #expect(statuses.last == .status("Added 4 items from the pasted lines"))
    }

    @MainActor
    @Test func pasteOutsideAnInputLineIsIgnoredWithAMessage() async throws {
        let app = try app()
        let before = app.store.state
        let events = app.events.events
        perform(KeyMap.commands(for: .paste("dddq"), state: app.store.state, makeID: app.environment.uuid), on: app)
        #expect(app.store.state == before)
        var iterator = events.makeAsyncIterator()
        #expect(await iterator.next() == .status("Pasted text ignored: it goes into an input line (press a to add items, then paste)"))
    }

    @MainActor
    @Test func overLongPastedTitleIsRefusedWithTheLimitAndKeptInTheField() async throws {
        let app = try app()
        let events = app.events.events
        perform([.send(.ui(.beginInput(.addItem)))], on: app)
        let long = String(repeating: "p", count: 600)
        for pasted in [long + "\n", long] {
            perform([.send(.ui(.draftChanged("")))], on: app)
            perform(KeyMap.commands(for: .paste(pasted), state: app.store.state, makeID: app.environment.uuid), on: app)
            #expect(app.store.items.isEmpty)
            #expect(app.store.ui.input == .addItem)
            #expect(app.store.ui.draft == long)
        }
        perform(KeyMap.commands(for: .enter, state: app.store.state, makeID: app.environment.uuid), on: app)
        #expect(app.store.items.isEmpty)
        #expect(app.store.ui.draft == long)
        var iterator = events.makeAsyncIterator()
        #expect(await iterator.next() == .error("A title is limited to 500 characters (this one has 600)"))
    }

    @MainActor
    @Test func severalLinesIntoAnotherFieldAreJoinedWithSpaces() throws {
        let app = try app()
        perform([.send(.ui(.beginInput(.search)))], on: app)
        perform(KeyMap.commands(for: .paste("milk\r\nbread\n"), state: app.store.state, makeID: app.environment.uuid), on: app)
        #expect(app.store.ui.searchText == "milk bread")
        #expect(KeyMap.pastedLines("a\tb\r\nc\rd\ne\u{7}") == ["a b", "c", "d", "e"])
    }

    // MARK: Without bracketed paste

    @MainActor
    @Test func fastKeysAfterTextAreStillTextSoEveryPastedLineIsAnItem() async throws {
        let app = try app()
        perform([.send(.items(.add(id: uuid(7), listID: app.store.lists[0].id, title: "precious item")))], on: app)
        var burst = TypingBurst()
        let start = ContinuousClock.now
        func press(_ keys: [KeyEvent], at time: ContinuousClock.Instant) {
            for key in keys {
                perform(burst.commands(for: key, at: time, state: app.store.state, makeID: app.environment.uuid), on: app)
            }
        }
        press([.character("a")], at: start)
        // 500 lines in a few reads, as a terminal without bracketed paste delivers them.
        var decoder = KeyDecoder()
        let pasted = (1...500).map { "pasted line \($0)\r" }.joined()
        let bytes = Array(pasted.utf8)
        for (index, chunk) in stride(from: 0, to: bytes.count, by: 4096).enumerated() {
            press(decoder.feed(Array(bytes[chunk..<min(chunk + 4096, bytes.count)])), at: start + .milliseconds(1 + index))
        }
        #expect(app.store.items.count == 501)
        #expect(app.store.items.map(\.title) == ["precious item"] + (1...500).map { "pasted line \($0)" })
        #expect(burst.addedLines == 500)
        #expect(app.store.ui.input == nil)
        // A person's next key, later, is a command again.
        press([.character("j")], at: start + .seconds(1))
        #expect(app.store.ui.input == nil)
    }

    @MainActor
    @Test func typedSlowlyEnterClosesTheFieldAndTheNextKeyIsACommand() throws {
        let app = try app()
        var burst = TypingBurst()
        let start = ContinuousClock.now
        var time = start
        for key in [KeyEvent.character("a"), .character("h"), .character("i"), .enter, .character("d")] {
            time += .milliseconds(80)
            for command in burst.commands(for: key, at: time, state: app.store.state, makeID: app.environment.uuid) {
                app.perform(command)
            }
        }
        #expect(app.store.items.isEmpty)   // "hi" added, then d deleted it (undoable)
        #expect(app.store.ui.input == nil)
        #expect(app.store.canUndo)
    }

    @MainActor
    @Test func aBurstAfterALineBreakInAnotherFieldIsLeftOutAndSaid() throws {
        let app = try app()
        perform([.send(.items(.add(id: uuid(7), listID: app.store.lists[0].id, title: "keep")))], on: app)
        var burst = TypingBurst()
        let time = ContinuousClock.now
        perform([.send(.ui(.beginInput(.editItem(uuid(7)), draft: "keep")))], on: app)
        for key in KeyDecoder().feedAll(" me\rdq") {
            perform(burst.commands(for: key, at: time, state: app.store.state, makeID: app.environment.uuid), on: app)
        }
        #expect(app.store.items.map(\.title) == ["keep me"])
        #expect(burst.leftOut)
    }
}

extension KeyDecoder {
    /// The events of `text` fed in one read.
    func feedAll(_ text: String) -> [KeyEvent] {
        var copy = self
        return copy.feed(Array(text.utf8))
    }
}
