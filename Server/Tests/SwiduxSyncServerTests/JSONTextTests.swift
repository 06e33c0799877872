import Foundation
import NIOCore
@testable import SwiduxSyncServer
import SwiduxSyncWire
import Testing

/// A string in a written answer (a table name, the scope) reads back as itself, whether it
/// needs escapes or takes the copy without them (issue 31).
@Suite("JSONText writes strings")
struct JSONTextTests {
    @Test("Plain, non-ASCII, escaped and empty strings read back through JSONDecoder, written as SyncJSON writes them")
    func stringsReadBack() throws {
        for text in ["todo", "", "café", "a\"b", "back\\slash", "line\nfeed", "\u{1}", "😀 \u{7F}"] {
            var json = JSONText(capacity: 8)
            json.string(text)
            let written = Array(json.buffer.readableBytesView)
            var expected: [UInt8] = []
            SyncJSON.appendString(text, to: &expected)
            #expect(written == expected, "\(text.debugDescription)")
            #expect(try JSONDecoder().decode(String.self, from: Data(written)) == text)
        }
    }
}
