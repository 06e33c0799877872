import Foundation
import SwiduxSyncWire
import Testing

/// The shared scanner under both hand-written readers (the client's answers, the server's
/// pushes): JSON's grammar, strictly, with errors that name the offset.
@Suite("JSONScanner reads JSON's grammar strictly")
struct JSONScannerTests {
    func scan<T>(_ text: String, _ read: (inout JSONScanner) throws -> T) throws -> T {
        try Data(text.utf8).withUnsafeBytes { bytes in
            var scanner = JSONScanner(bytes)
            let value = try read(&scanner)
            try scanner.end()
            return value
        }
    }

    func failure(_ bytes: [UInt8], _ read: (inout JSONScanner) throws -> Void) -> JSONScanner.Failure? {
        bytes.withUnsafeBytes { raw in
            var scanner = JSONScanner(raw)
            do {
                try read(&scanner)
                try scanner.end()
                return nil
            } catch {
                return error as? JSONScanner.Failure
            }
        }
    }

    @Test("Integers: the 64-bit range exactly, no leading zero, no fraction")
    func integers() throws {
        #expect(try scan(" -9223372036854775808 ") { try $0.integer() } == .min)
        #expect(try scan("9223372036854775807") { try $0.integer() } == .max)
        #expect(try scan("0") { try $0.integer() } == 0)
        for bad in ["9223372036854775808", "-9223372036854775809", "99999999999999999999", "01", "-", "1.0", "1e3", "x"] {
            let error = failure(Array(bad.utf8)) { _ = try $0.integer() }
            #expect(error?.offset == 0, "\(bad)")
        }
    }

    @Test("Numbers: JSON's grammar, finite")
    func numbers() throws {
        #expect(try scan("-0.5e-3") { try $0.number() } == -0.0005)
        #expect(try scan("12") { try $0.number() } == 12)
        #expect(try scan("0.000e-999") { try $0.number() } == 0)   // zero itself, however written
        for bad in ["01.5", "1.", ".5", "1e", "1e999", "+1", "1e-400", "-0.5e-999"] {
            #expect(failure(Array(bad.utf8)) { _ = try $0.number() } != nil, "\(bad)")
        }
    }

    @Test("Strings: escapes and surrogate pairs decoded; invalid UTF-8, lone surrogates and raw control characters refused")
    func strings() throws {
        #expect(try scan(#""a\"\\\/\b\f\n\r\t\u00e9\ud83d\ude00 é""#) { try $0.string() } == "a\"\\/\u{8}\u{C}\n\r\té😀 é")
        #expect(try scan(#""""#) { try $0.string() } == "")
        let invalid: [[UInt8]] = [
            [0x22, 0xFF, 0x22],                   // not UTF-8
            [0x22, 0xED, 0xA0, 0x80, 0x22],       // an encoded surrogate
            [0x22, 0xF0, 0x9F, 0x98, 0x22],       // a truncated sequence (one replacement character long)
            Array(#""\ud83d x""#.utf8),           // a lone high surrogate
            Array(#""\x""#.utf8),                 // an unknown escape
            [0x22, 0x61, 0x0A, 0x22],             // a raw line feed
            Array(#""abc"#.utf8),                 // unfinished
        ]
        for bytes in invalid {
            #expect(failure(bytes) { _ = try $0.string() } != nil, "\(bytes)")
        }
    }

    @Test("Objects, arrays and skipped values; trailing bytes are an error at their offset")
    func structure() throws {
        var keys: [String] = []
        try scan(#" { "a" : [1, {"x": [true, false, null]}, "s", -2.5e1] , "b": {} } "#) { scanner in
            try scanner.object { scanner, key in
                keys.append(key)
                try scanner.skipValue()
            }
        }
        #expect(keys == ["a", "b"])
        #expect(try scan("[ ]") { scanner -> Int in
            var count = 0
            try scanner.array { _ = try $0.bool(); count += 1 }
            return count
        } == 0)
        let trailing = failure(Array("[1] 2".utf8)) { try $0.array { _ = try $0.integer() } }
        #expect(trailing?.offset == 4)
        #expect(trailing?.description == "the end of the document was expected (at byte 4)")
        #expect(failure(Array("[1,]".utf8)) { try $0.array { _ = try $0.integer() } } != nil)
        #expect(failure(Array(#"{"a" 1}"#.utf8)) { try $0.object { scanner, _ in try scanner.skipValue() } }?.reason == "':' was expected")
    }

    @Test("A skipped value is checked as strictly as a read one: the same documents are refused, at the same offset")
    func skippingIsStrict() throws {
        let documents: [[UInt8]] = [
            Array(#"{"k": "plain", "n": -12, "m": 0}"#.utf8),
            Array(#"{"k": "é 😀 \"q\" \n \u00e9 \ud83d\ude00", "n": 123456789012345}"#.utf8),
            Array(#"{"n": 1234567890123456789012, "r": -2.5e-3, "z": 0.0}"#.utf8),
            Array(#"{"n": 1e999}"#.utf8),                 // not finite
            Array(#"{"n": 01}"#.utf8),                    // leading zero
            Array(#"{"n": -}"#.utf8),
            Array(#"{"n": 1.}"#.utf8),
            Array(#"{"k": "\x"}"#.utf8),                 // bad escape
            Array(#"{"k": "\ud800"}"#.utf8),             // lone surrogate
            Array(#"{"k": "a"#.utf8) + [0x01] + Array(#""}"#.utf8),            // control character
            Array(#"{"k": "a"#.utf8) + [0xC3, 0x28] + Array(#""}"#.utf8),      // invalid UTF-8
            Array(#"{"a"#.utf8) + [0xFF] + Array(#"": 1}"#.utf8),              // invalid UTF-8 in a key
            Array(#"{"k": "unfinished}"#.utf8),
        ]
        for bytes in documents {
            let read = failure(bytes) { scanner in
                try scanner.object { scanner, _ in
                    switch scanner.peek() {
                    case UInt8(ascii: "\""): _ = try scanner.string()
                    default: _ = try scanner.number()
                    }
                }
            }
            let skipped = failure(bytes) { try $0.skipValue() }
            #expect(read?.offset == skipped?.offset, "\(String(decoding: bytes, as: UTF8.self))")
            #expect((read == nil) == (skipped == nil), "\(String(decoding: bytes, as: UTF8.self))")
        }
        #expect(failure(Array(#"{"n": 1e999}"#.utf8)) { try $0.skipValue() } != nil)
        #expect(failure(Array(#"{"k": "é", "n": -12}"#.utf8)) { try $0.skipValue() } == nil)
    }

    @Test("A sync value is appended exactly as SyncJSON writes it, copied when it already has that form")
    func syncValueAppended() throws {
        let cases: [(String, SyncValue)] = [
            ("null", .null), ("-0", .integer(0)), ("0", .integer(0)), (" -42 ", .integer(-42)),
            ("9223372036854775807", .integer(.max)), (#""plain""#, .text("plain")), (#""é😀""#, .text("é😀")),
            (#""caf\u00e9\/\n""#, .text("café/\n")), (#""\u0001\"""#, .text("\u{1}\"")),
            (#"{ "real" : 5e-1 }"#, .real(0.5)), (#"{"real":-0.0}"#, .real(-0.0)), (#"{"blob":"AAE="}"#, .blob(Data([0, 1]))),
        ]
        for (text, value) in cases {
            var appended: [UInt8] = []
            try scan(text) { try $0.syncValue(appendingTo: &appended) }
            var written: [UInt8] = []
            try SyncJSON.append(value, to: &written)
            #expect(appended == written, "\(text)")
            #expect(try scan(text) { try $0.syncValue() } == value, "\(text)")
        }
        for bad in ["true", "1.5", "01", #"{"real":1,"blob":""}"#, #"{"text":"a"}"#, "{}", #"{"blob":"not base64"}"#, #"{"real":1e999}"#, ""] {
            #expect(failure(Array(bad.utf8)) { var bytes: [UInt8] = []; try $0.syncValue(appendingTo: &bytes) } != nil, "\(bad)")
            #expect(failure(Array(bad.utf8)) { _ = try $0.syncValue() } != nil, "\(bad)")
        }
        // Invalid UTF-8 inside a string without escapes is refused, not copied.
        #expect(failure([0x22, 0x61, 0xC3, 0x22]) { var bytes: [UInt8] = []; try $0.syncValue(appendingTo: &bytes) } != nil)
    }

    @Test("SyncJSON writes every string so that JSONDecoder and the scanner read it back, contiguous or not")
    func stringsWritten() throws {
        let alphabet: [Character] = ["a", "Z", " ", "\"", "\\", "/", "\n", "\r", "\t", "\u{0}", "\u{1}", "\u{1F}", "\u{7F}", "é", "€", "😀"]
        var random = SystemRandomNumberGenerator()
        for length in Array(0...6) + [40, 200] {
            for _ in 0..<40 {
                let text = String((0..<length).map { _ in alphabet.randomElement(using: &random)! })
                var contiguous: [UInt8] = []
                SyncJSON.appendString(text, to: &contiguous)
                var byteByByte: [UInt8] = []
                SyncJSON.appendString(utf8: AnySequence(text.utf8), to: &byteByByte)   // no contiguous storage
                #expect(contiguous == byteByByte, "\(text.debugDescription)")
                #expect(try JSONDecoder().decode(String.self, from: Data(contiguous)) == text, "\(text.debugDescription)")
                #expect(try scan(String(decoding: contiguous, as: UTF8.self)) { try $0.string() } == text)
                // Only what JSON requires is escaped: no escape is longer than needed.
                let escapes = text.utf8.filter { $0 < 0x20 || $0 == UInt8(ascii: "\"") || $0 == UInt8(ascii: "\\") }.count
                #expect(contiguous.count <= text.utf8.count + 2 + escapes * 6)
            }
        }
        var bytes: [UInt8] = []
        SyncJSON.appendString("a\"b\\c\n\u{1}é", to: &bytes)
        #expect(String(decoding: bytes, as: UTF8.self) == #""a\"b\\c\n\u0001é""#)
    }

    @Test("SyncJSON writes a blob as Foundation's base64 writes it, every length and remainder, and the scanner reads it back")
    func blobsWritten() throws {
        var random = SystemRandomNumberGenerator()
        for length in Array(0...20) + [63, 64, 65, 1000] {
            for _ in 0..<20 {
                let blob = Data((0..<length).map { _ in UInt8.random(in: 0...255, using: &random) })
                var bytes: [UInt8] = []
                blob.withUnsafeBytes { SyncJSON.appendBlob($0, to: &bytes) }
                #expect(String(decoding: bytes, as: UTF8.self) == "{\"blob\":\"\(blob.base64EncodedString())\"}", "\(Array(blob))")
                var viaValue: [UInt8] = []
                try SyncJSON.append(.blob(blob), to: &viaValue)
                #expect(viaValue == bytes)
                #expect(try scan(String(decoding: bytes, as: UTF8.self)) { try $0.syncValue() } == .blob(blob))
            }
        }
        var bytes: [UInt8] = []
        Data([0xFB, 0xFF, 0xBF, 0, 1]).withUnsafeBytes { SyncJSON.appendBlob($0, to: &bytes) }
        #expect(String(decoding: bytes, as: UTF8.self) == #"{"blob":"+/+/AAE="}"#)
    }
}
