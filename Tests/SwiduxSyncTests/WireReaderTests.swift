import Foundation
@testable import SwiduxSync
import SwiduxSyncWire
import Testing
import SwiduxTesting

/// The hand-written reader of pull pages and push answers (issue 31) against `JSONDecoder`,
/// the reference it replaces: random pages, compact and pretty-printed, and hand-written
/// JSON with every escape form, must decode to the same values; malformed JSON must fail.
@Suite("WireReader decodes what JSONDecoder decodes")
struct WireReaderTests {
    static let alphabet: [String] = ["a", "Z", "0", " ", "\"", "\\", "/", "\n", "\t", "\u{0001}", "\u{001F}", "\u{7F}",
                                     "é", "e\u{0301}", "ß", "中", "😀", "👩‍👩‍👧", "\u{FEFF}", "\u{2028}", "{", "]", ","]

    static func value(_ random: inout SeededRandomNumberGenerator) -> SyncValue {
        switch random.next() % 5 {
        case 0: .null
        case 1: .integer([Int64.min, Int64.max, 0, -1, Int64(bitPattern: random.next())][Int(random.next() % 5)])
        case 2: .real([0.1, -0.0, 1e300, -2.5e-300, Double.pi, Double(Int64(bitPattern: random.next() >> 11))][Int(random.next() % 6)])
        case 3: .text(String((0..<Int(random.next() % 12)).map { _ in alphabet[Int(random.next() % UInt64(alphabet.count))] }.joined()))
        default: .blob(Data((0..<Int(random.next() % 20)).map { _ in UInt8(truncatingIfNeeded: random.next()) }))
        }
    }

    static func page(_ random: inout SeededRandomNumberGenerator) -> PullResponse {
        let rows = (0..<Int(random.next() % 8)).map { index -> SyncRow in
            let deleted = random.next() % 4 == 0
            var columns: [String: SyncValue] = [:]
            for _ in 0..<Int(random.next() % 5) {
                columns[["title", "done", "ünï", "a\"b", "x"][Int(random.next() % 5)]] = value(&random)
            }
            return SyncRow(table: ["todo", "list"][index % 2], id: value(&random), version: Int64(random.next() % 1_000_000),
                           deleted: deleted, columns: deleted ? nil : columns)
        }
        return PullResponse(rows: rows, cursor: Int64(random.next() % 1_000_000), hasMore: random.next() % 2 == 0,
                            end: random.next() % 2 == 0 ? nil : 7, scope: random.next() % 2 == 0 ? nil : "team/☃")
    }

    @Test("Random pages, compact and pretty-printed, decode as JSONDecoder decodes them", arguments: 0..<20)
    func randomPages(seed: UInt64) throws {
        var random = SeededRandomNumberGenerator(seed: seed)
        for _ in 0..<25 {
            let page = Self.page(&random)
            for formatting in [JSONEncoder.OutputFormatting(), [.prettyPrinted, .sortedKeys], [.withoutEscapingSlashes]] {
                let encoder = JSONEncoder()
                encoder.outputFormatting = formatting
                let data = try encoder.encode(page)
                let reference = try JSONDecoder().decode(PullResponse.self, from: data)
                let read = try WireReader.pullResponse(data)
                #expect(read == reference, "seed \(seed): \(String(decoding: data, as: UTF8.self))")
            }
        }
    }

    @Test("Every escape form of JSON strings, numbers in every form, unknown keys skipped")
    func handWrittenJSON() throws {
        let json = #"""
        { "extra": {"nested": [1, 2.5e3, "x", null, true, false, {}]},
          "rows": [ { "table": "todo", "id": "\u00e9\ud83d\ude00\/\b\f\n\r\t\"\\", "version": 3, "deleted": false,
                      "columns": {"a": {"real": -1.25E+2}, "b": {"blob": "AAEC"}, "c": null, "d": -0, "e\u0301": "\u2028"},
                      "future": [] } ],
          "cursor": 12, "hasMore": true }
        """#
        let data = Data(json.utf8)
        #expect(try WireReader.pullResponse(data) == JSONDecoder().decode(PullResponse.self, from: data))
    }

    @Test("Malformed JSON is an error, never a partial page", arguments: [
        #"{"rows": [], "cursor": 1}"#,                                 // hasMore missing
        #"{"rows": [], "cursor": 1, "hasMore": true"#,                 // unterminated
        #"{"rows": [], "cursor": 1, "hasMore": true} x"#,              // trailing bytes
        #"{"rows": [{"table": "t", "id": "\ud800", "version": 1, "deleted": true}], "cursor": 1, "hasMore": false}"#,  // lone surrogate
        #"{"rows": [], "cursor": 1.5, "hasMore": false}"#,             // a cursor that is not an integer
        #"{"rows": [], "cursor": 99999999999999999999, "hasMore": false}"#,  // out of range
        #"{"rows": [{"table": "t", "id": "a\u0"}], "cursor": 1, "hasMore": false}"#,  // short escape
    ])
    func malformed(json: String) {
        #expect(throws: (any Error).self) { try WireReader.pullResponse(Data(json.utf8)) }
    }
}
