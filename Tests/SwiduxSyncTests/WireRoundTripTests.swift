import Foundation
@testable import SwiduxSync
import SwiduxSyncWire
import SwiduxTesting
import Testing

/// The one writer and the one reader of the wire format against each other and against
/// `JSONDecoder`: what the writer writes reads back as the value written, by both; on
/// documents edited at random, the reader never accepts what `JSONDecoder` refuses nor reads
/// another value, and refuses what `JSONDecoder` accepts only for its stated strictness.
@Suite("Wire writer and reader round trip and agree with JSONDecoder")
struct WireRoundTripTests {
    /// A page written by hand with the writer, as the server writes one.
    static func written(_ page: PullResponse) throws -> [UInt8] {
        var json = WireWriter()
        json.raw("{\"rows\":[")
        for (index, row) in page.rows.enumerated() {
            json.raw(index == 0 ? "{\"table\":" : ",{\"table\":")
            json.string(row.table)
            json.raw(",\"id\":")
            try json.value(row.id)
            json.raw(",\"version\":")
            json.integer(row.version)
            json.raw(",\"deleted\":")
            json.bool(row.deleted)
            if let columns = row.columns {
                json.raw(",\"columns\":{")
                for (place, (name, value)) in columns.sorted(by: { $0.key < $1.key }).enumerated() {
                    if place > 0 { json.raw(",") }
                    json.string(name)
                    json.raw(":")
                    try json.value(value)
                }
                json.raw("}")
            }
            json.raw("}")
        }
        json.raw("],\"cursor\":")
        json.integer(page.cursor)
        json.raw(",\"hasMore\":")
        json.bool(page.hasMore)
        if let end = page.end {
            json.raw(",\"end\":")
            json.integer(end)
        }
        if let scope = page.scope {
            json.raw(",\"scope\":")
            json.string(scope)
        }
        json.raw("}")
        return json.output
    }

    static func read(_ bytes: [UInt8]) throws -> SyncValue {
        try bytes.withUnsafeBytes { buffer in
            var reader = WireReader(buffer)
            let value = try reader.syncValue()
            try reader.end()
            return value
        }
    }

    @Test("Every value written reads back as itself, by the reader and by JSONDecoder; read again, it is written to the same bytes", arguments: 0..<10)
    func valuesRoundTrip(seed: UInt64) throws {
        var random = SeededRandomNumberGenerator(seed: seed)
        for _ in 0..<200 {
            let value = WireReaderTests.value(&random)
            var json = WireWriter()
            try json.value(value)
            #expect(try Self.read(json.output) == value, "seed \(seed): \(value)")
            #expect(try JSONDecoder().decode(SyncValue.self, from: Data(json.output)) == value, "seed \(seed): \(value)")
            // The server's copy of a pushed value: the same bytes as the writer's.
            let copied = try json.output.withUnsafeBytes { buffer -> [UInt8] in
                var reader = WireReader(buffer)
                var bytes: [UInt8] = []
                try reader.syncValue(appendingTo: &bytes)
                return bytes
            }
            #expect(copied == json.output, "seed \(seed): \(value)")
            // JSONEncoder's form of the same value reads as the same value.
            #expect(try Self.read(Array(JSONEncoder().encode(value))) == value, "seed \(seed): \(value)")
        }
    }

    @Test("A page written by the writer reads back as itself, by the reader and by JSONDecoder", arguments: 0..<10)
    func pagesRoundTrip(seed: UInt64) throws {
        var random = SeededRandomNumberGenerator(seed: seed)
        for _ in 0..<25 {
            let page = WireReaderTests.page(&random)
            let bytes = try Self.written(page)
            #expect(try WireReader.pullResponse(Data(bytes)) == page, "seed \(seed)")
            #expect(try JSONDecoder().decode(PullResponse.self, from: Data(bytes)) == page, "seed \(seed)")
        }
    }

    @Test("Strings of every kind and integers of every size are written as JSONEncoder reads them, into any output")
    func stringsAndIntegers() throws {
        var random = SeededRandomNumberGenerator(seed: 7)
        let integers: [Int64] = [0, -1, 9, 10, -10, .max, .min, .max - 1, .min + 1] + (0..<300).map { _ in Int64(bitPattern: random.next()) }
        for integer in integers {
            var json = WireWriter()
            json.integer(integer)
            #expect(String(decoding: json.output, as: UTF8.self) == String(integer))
        }
        for scalar in [0, 0x1F, 0x20, 0x22, 0x5C, 0x7F, 0x80, 0x2028, 0xFFFF, 0x1F600] {
            let text = "a" + String(Character(Unicode.Scalar(scalar)!)) + "b"
            var contiguous = WireWriter(), byteByByte = WireWriter()
            contiguous.string(text)
            byteByByte.string(utf8: AnySequence(text.utf8))   // no contiguous storage
            #expect(contiguous.output == byteByByte.output)
            #expect(try JSONDecoder().decode(String.self, from: Data(contiguous.output)) == text)
            #expect(try Self.read(contiguous.output) == .text(text))
        }
        var json = WireWriter()
        #expect(throws: EncodingError.self) { try json.value(.real(.infinity)) }
        #expect(throws: EncodingError.self) { try json.value(.real(.nan)) }
    }

    /// Why the reader may refuse what `JSONDecoder` accepts: the strictness it states.
    static let strictness = [
        "has no member", "appears twice", "an integer was expected", "a value object", "an empty value object",
        "a number was expected", "not valid UTF-8", "surrogate",
        // A trailing comma in an object or an array (`{"a":1,}`, `[{…},]`): `JSONDecoder`
        // accepts it, RFC 8259 does not.
        "'\"' was expected", "'{' was expected",
    ]

    @Test("Documents edited at random: never accepted when JSONDecoder refuses them, never read as another page", arguments: 0..<40)
    func randomEdits(seed: UInt64) throws {
        var random = SeededRandomNumberGenerator(seed: seed)
        var agreed = 0, refusedByBoth = 0, stricter = 0
        let pieces: [[UInt8]] = ["\"", "{", "}", "[", "]", ",", ":", "0", "-", ".", "e", "\\", "null", "true", "1.5", "\"ext\":{},",
                                 "\"x\":1,", "\\u00e9", "\\ud800", " "].map { Array($0.utf8) } + [[0xFF], [0xC3], [0x01]]
        for _ in 0..<250 {
            // Sorted: the same seed edits the same document in every process.
            let encoder = JSONEncoder()
            encoder.outputFormatting = random.next() % 2 == 0 ? [.sortedKeys] : [.sortedKeys, .prettyPrinted]
            var bytes = Array(try encoder.encode(WireReaderTests.page(&random)))
            for _ in 0..<(1 + Int(random.next() % 3)) where !bytes.isEmpty {
                let at = Int(random.next() % UInt64(bytes.count))
                switch random.next() % 3 {
                case 0: bytes.remove(at: at)
                case 1: bytes.insert(contentsOf: pieces[Int(random.next() % UInt64(pieces.count))], at: at)
                default: bytes.replaceSubrange(at...at, with: pieces[Int(random.next() % UInt64(pieces.count))])
                }
            }
            let data = Data(bytes)
            let reference = try? JSONDecoder().decode(PullResponse.self, from: data)
            do {
                let read = try WireReader.pullResponse(data)
                #expect(read == reference, "seed \(seed): accepted \(String(decoding: bytes, as: UTF8.self))")
                agreed += 1
            } catch let failure as WireReader.Failure {
                if reference == nil {
                    refusedByBoth += 1
                } else {
                    stricter += 1
                    #expect(Self.strictness.contains { failure.reason.contains($0) },
                            "seed \(seed): \(failure) for \(String(decoding: bytes, as: UTF8.self))")
                }
            }
        }
        // The edits reach every outcome: the test sees documents both accept and both refuse.
        #expect(agreed > 0 && refusedByBoth > 0, "seed \(seed): \(agreed) agreed, \(refusedByBoth) refused by both, \(stricter) stricter")
    }
}
