import Foundation
import NIOCore
@testable import SwiduxSyncServer
import SwiduxSyncWire
import Testing

/// A string in a written answer (a table name, the scope) reads back as itself, whether it
/// needs escapes or takes the copy without them.
@Suite("Wire writer into a ByteBuffer")
struct WireWriterBufferTests {
    @Test("Plain, non-ASCII, escaped and empty strings read back through JSONDecoder, the same bytes as into [UInt8]")
    func stringsReadBack() throws {
        for text in ["todo", "", "café", "a\"b", "back\\slash", "line\nfeed", "\u{1}", "😀 \u{7F}"] {
            var json = WireWriter<ByteBuffer>(capacity: 8)
            json.string(text)
            let written = Array(json.output.readableBytesView)
            var expected = WireWriter()
            expected.string(text)
            #expect(written == expected.output, "\(text.debugDescription)")
            #expect(try JSONDecoder().decode(String.self, from: Data(written)) == text)
        }
    }

    @Test("Integers are written as String(value) spells them: extremes, zero, signs, random values")
    func integersWritten() {
        var random = SystemRandomNumberGenerator()
        let values: [Int64] = [0, 1, -1, 9, 10, -10, 99, 100, Int64.max, Int64.min, Int64.max - 1, Int64.min + 1]
            + (0..<500).map { _ in Int64.random(in: .min ... .max, using: &random) }
            + (0..<500).map { _ in Int64.random(in: -100_000...100_000, using: &random) }
        for value in values {
            var json = WireWriter<ByteBuffer>(capacity: 1)
            json.integer(value)
            #expect(String(decoding: json.output.readableBytesView, as: UTF8.self) == String(value))
        }
        // Literals and copied text around them.
        var json = WireWriter<ByteBuffer>(capacity: 1)
        json.raw("{\"n\":")
        json.integer(-42)
        json.raw(",\"id\":")
        json.rawJSON(#"{"blob":"AA=="}"#)
        json.raw("}")
        #expect(String(decoding: json.output.readableBytesView, as: UTF8.self) == #"{"n":-42,"id":{"blob":"AA=="}}"#)
    }

    @Test("An id's wire JSON and key, written once: SyncValue.key and the writer's value, for blobs of every length and the other kinds")
    func keysFromJSON() throws {
        var random = SystemRandomNumberGenerator()
        var values: [SyncValue] = [.null, .integer(-3), .real(0.5), .text("é\"x"), .text("")]
        values += (0..<70).map { length in .blob(Data((0..<length).map { _ in UInt8.random(in: 0...255, using: &random) })) }
        for value in values {
            let id = try WireJSON.id(value)
            #expect(id.key == value.key, "\(value)")
            #expect(id.json == (try WireJSON.text(value)), "\(value)")
        }
    }
}
