import Foundation
@testable import SwiduxSync
import SwiduxSyncWire
import Testing
import SwiduxTesting

/// The hand-written reader of pull pages and push answers against `JSONDecoder`, the
/// reference it replaces: random pages, compact and pretty-printed, and hand-written JSON
/// with every escape form, must decode to the same values; malformed JSON must fail, and so
/// must a member the message does not declare, but for the extension member.
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

    @Test("Every escape form of JSON strings, numbers in every form, the extension member skipped wherever it is")
    func handWrittenJSON() throws {
        let json = #"""
        { "ext": {"nested": [1, 2.5e3, "x", null, true, false, {}]},
          "rows": [ { "table": "todo", "id": "\u00e9\ud83d\ude00\/\b\f\n\r\t\"\\", "version": 3, "deleted": false,
                      "columns": {"a": {"real": -1.25E+2}, "b": {"blob": "AAEC"}, "c": null, "d": -0, "e\u0301": "\u2028"},
                      "ext": [] } ],
          "cursor": 12, "hasMore": true }
        """#
        let data = Data(json.utf8)
        #expect(try WireReader.pullResponse(data) == JSONDecoder().decode(PullResponse.self, from: data))
    }

    @Test("A member the message does not declare is an error naming it; so is a member named twice", arguments: [
        (#"{"rows": [], "cursor": 1, "hasMore": true, "extra": 1}"#, #"a pull answer has no member "extra""#),
        (#"{"rows": [{"table": "t", "id": 1, "version": 1, "deleted": true, "future": []}], "cursor": 1, "hasMore": false}"#,
         #"a row has no member "future""#),
        (#"{"rows": [], "cursor": 1, "cursor": 2, "hasMore": true}"#, #"the member "cursor" appears twice in a pull answer"#),
        (#"{"rows": [], "cursor": 1, "hasMore": true, "ext": {}, "ext": {}}"#, #"the member "ext" appears twice"#),
        (#"{"rows": [{"table": "t", "id": 1, "version": 1, "deleted": false, "columns": {"a": 1, "a": 2}}], "cursor": 1, "hasMore": false}"#,
         #"the column "a" appears twice in a row"#),
        (#"{"rows": [{"table": "t", "id": {"real": 1, "blob": ""}, "version": 1, "deleted": true}], "cursor": 1, "hasMore": false}"#,
         "a value object with more than one member"),
        (#"{"rows": [{"table": "t", "id": true, "version": 1, "deleted": true}], "cursor": 1, "hasMore": false}"#,
         "an integer was expected"),
    ])
    func strictMembers(json: String, reason: String) {
        #expect {
            try WireReader.pullResponse(Data(json.utf8))
        } throws: { error in
            (error as? WireReader.Failure)?.reason.contains(reason) == true
        }
    }

    @Test("Two spellings of a column name that differ in their bytes are not a duplicate: the first is kept, as JSONDecoder keeps it")
    func canonicallyEquivalentColumns() throws {
        let data = Data(#"{"rows": [{"table": "t", "id": 1, "version": 1, "deleted": false, "columns": {"café": 1, "café": 2}}], "cursor": 1, "hasMore": false}"#.utf8)
        #expect(try WireReader.pullResponse(data) == JSONDecoder().decode(PullResponse.self, from: data))
    }

    @Test("A push answer: read as JSONDecoder reads it; an unknown member refused, the extension member skipped")
    func pushAnswers() throws {
        let answer = #"{"lastMutationID":4,"results":[{"table":"todo","id":{"blob":"AQID"},"applied":false,"current":{"table":"todo","id":{"blob":"AQID"},"version":9,"deleted":true}},{"table":"todo","id":"a","applied":true,"current":{"table":"todo","id":"a","version":10,"deleted":false,"columns":{"x":{"real":0.5}}},"ext":{"why":1}}],"acknowledged":[3,4],"conflicts":0,"scope":"s"}"#
        let data = Data(answer.utf8)
        #expect(try PushAnswer.read(data) == PushAnswer(JSONDecoder().decode(PushResponse.self, from: data)))
        let unknown = Data(answer.replacingOccurrences(of: #""ext":{"why":1}"#, with: #""why":1"#).utf8)
        #expect(throws: WireReader.Failure.self) { try PushAnswer.read(unknown) }
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
