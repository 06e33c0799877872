import Testing
@testable import TodosApp

@Suite struct DisplayWidthTests {
    @Test func asciiIsOneColumnEach() {
        #expect(DisplayWidth.of("hello") == 5)
        #expect(DisplayWidth.of("") == 0)
    }

    @Test func cjkAndHangulAreTwoColumns() {
        #expect(DisplayWidth.of("日本語") == 6)
        #expect(DisplayWidth.of("한국어") == 6)
        #expect(DisplayWidth.of("ｈｉ") == 4)   // fullwidth Latin
        #expect(DisplayWidth.of("ｶ") == 1)     // halfwidth katakana
    }

    @Test func emojiAreTwoColumns() {
        #expect(DisplayWidth.of("📞") == 2)
        #expect(DisplayWidth.of("👍🏽") == 2)             // skin tone modifier
        #expect(DisplayWidth.of("👨‍👩‍👧") == 2)           // ZWJ family
        #expect(DisplayWidth.of("🇫🇷") == 2)             // flag
        #expect(DisplayWidth.of("❤️") == 2)              // text default + VS16
        #expect(DisplayWidth.of("✅") == 2)
    }

    @Test func combiningMarksAddNothing() {
        #expect(DisplayWidth.of("e\u{301}") == 1)
        #expect(DisplayWidth.of("Zalgo\u{336}\u{337}") == 5)
        #expect(DisplayWidth.of("\u{200B}") == 0)
        #expect(DisplayWidth.of("a\u{0007}b") == 2)   // control
    }

    @Test func truncatesByWidthNotByCharacters() {
        #expect(DisplayWidth.truncate("日本語テキスト", toWidth: 7) == "日本語…")
        #expect(DisplayWidth.of(DisplayWidth.truncate("日本語テキスト", toWidth: 7)) == 7)
        #expect(DisplayWidth.truncate("abc", toWidth: 3) == "abc")
        #expect(DisplayWidth.truncate("abcd", toWidth: 3) == "ab…")
        #expect(DisplayWidth.truncate("👍👍👍", toWidth: 4) == "👍…")
        #expect(DisplayWidth.truncate("e\u{301}e\u{301}e\u{301}", toWidth: 2) == "e\u{301}…")
    }

    @Test func fitPadsToExactWidth() {
        for text in ["", "abc", "日本語", "a日b", "👨‍👩‍👧 family", String(repeating: "長", count: 100)] {
            for width in [1, 2, 3, 10, 80] {
                #expect(DisplayWidth.of(DisplayWidth.fit(text, toWidth: width)) == width, "\(text) @ \(width)")
            }
        }
    }
}
