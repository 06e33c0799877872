import Testing
@testable import TodosApp

@Suite struct KeyDecoderTests {
    func decode(_ chunks: [UInt8]...) -> [KeyEvent] {
        var decoder = KeyDecoder()
        return chunks.flatMap { decoder.feed($0) }
    }

    @Test func printableControlAndSpecialKeys() {
        #expect(decode(Array("aZ ?".utf8)) == [.character("a"), .character("Z"), .character(" "), .character("?")])
        #expect(decode([0x0D, 0x7F, 0x09, 0x12, 0x03]) == [.enter, .backspace, .tab, .control("r"), .control("c")])
    }

    @Test func escapeSequences() {
        #expect(decode(Array("\u{1B}[A\u{1B}[B\u{1B}[C\u{1B}[D".utf8)) == [.up, .down, .right, .left])
        #expect(decode(Array("\u{1B}OA\u{1B}[H\u{1B}[F\u{1B}[3~\u{1B}[5~\u{1B}[6~\u{1B}[Z".utf8))
                == [.up, .home, .end, .delete, .pageUp, .pageDown, .backTab])
        #expect(decode(Array("\u{1B}[1;5A".utf8)) == [.up])   // Ctrl-Up
    }

    @Test func loneEscapeAndUnknownSequences() {
        #expect(decode([0x1B]) == [.escape])
        #expect(decode(Array("\u{1B}[99~x".utf8)) == [.unknown, .character("x")])
        #expect(decode(Array("\u{1B}[200~hi\u{1B}[201~".utf8)) == [.paste("hi")])   // bracketed paste
        #expect(decode(Array("\u{1B}[<0;10;5M".utf8)) == [.unknown])   // mouse report
    }

    @Test func sequencesSplitAcrossReads() {
        #expect(decode([0x1B, 0x5B], [0x41]) == [.up])
        let thumbs = Array("👍".utf8)
        #expect(decode(Array(thumbs[0..<2]), Array(thumbs[2...])) == [.character("👍")])
    }

    @Test func unicodeInput() {
        #expect(decode(Array("日本".utf8)) == [.character("日"), .character("本")])
        #expect(decode(Array("e\u{301}".utf8)) == [.character("e\u{301}")])
    }

    @Test func invalidUTF8IsUnknownNotAReplacementCharacter() {
        // Well-formed continuation bytes, invalid scalars: a surrogate and an overlong "/".
        #expect(decode([0xED, 0xA0, 0x80, 0x61]) == [.unknown, .character("a")])
        #expect(decode([0xE0, 0x80, 0xAF]) == [.unknown])
    }

    @Test func garbageNeverCrashes() {
        #expect(decode([0xFF, 0xC3, 0x41]) == [.unknown, .unknown, .character("A")])
        #expect(decode([]) == [])
        var decoder = KeyDecoder()
        var generator = SystemRandomNumberGenerator()
        for _ in 0..<200 {
            let bytes = (0..<Int.random(in: 0...64, using: &generator)).map { _ in UInt8.random(in: 0...255, using: &generator) }
            _ = decoder.feed(bytes)
        }
        let long = [UInt8](repeating: 0x1B, count: 1) + [0x5B] + [UInt8](repeating: 0x30, count: 100)
        #expect(decode(long).contains(.unknown))
    }
}
