import Foundation
import Testing
@testable import TodosApp

/// `todos list --json` writes its JSON directly: byte for byte what `JSONEncoder` writes.
@Suite struct ItemJSONTests {
    func encoderOutput(_ items: [ItemJSON]) throws -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        encoder.dateEncodingStrategy = .iso8601
        return String(decoding: try encoder.encode(items), as: UTF8.self)
    }

    func item(_ title: String, tags: [String] = [], list: String = "Inbox", date: Double = 1_700_000_000) -> ItemJSON {
        var item = ItemJSON(item: TodoItem(listID: uuid(1), title: title, createdAt: Date(timeIntervalSince1970: date)), list: list, tags: [])
        item.tags = tags
        return item
    }

    @Test func matchesJSONEncoderByteForByte() throws {
        let tricky = [
            "plain", "quote \" and backslash \\ and slash / end", "new\nline\r\ttab", "\u{8}\u{C}\u{1}\u{1F}\u{7F}",
            "café ☕︎ 長い 👩‍👩‍👧", "", "\u{2028}\u{2029}", "#tag \\u0041",
        ]
        var items: [ItemJSON] = []
        for (index, title) in tricky.enumerated() {
            items.append(item(title, tags: Array(tricky.prefix(index % 3)), list: tricky[(index + 1) % tricky.count],
                              date: 1_700_000_000.882 + Double(index) * 86_399.5))
        }
        items.append(item("old date", date: -1_000_000_000.25))
        for count in [0, 1, items.count] {
            let slice = Array(items.prefix(count))
            #expect(try ItemJSON.encode(slice) == encoderOutput(slice), "\(count) items")
        }
    }
}
