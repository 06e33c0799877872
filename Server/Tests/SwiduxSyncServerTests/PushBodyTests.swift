import Foundation
import NIOCore
import SwiduxSyncWire
import Testing
@testable import SwiduxSyncServer

/// The hand-written push body reader gives what `JSONDecoder` gives, and leaves to it
/// (answers `nil`) everything outside the JSON clients write.
@Suite("Push body reader")
struct PushBodyTests {
    private func read(_ text: String) -> ReceivedPush? {
        PushBody.decode(ByteBuffer(string: text))
    }

    /// What the server applies when `JSONDecoder` reads the body: its columns encoded by `WireJSON`.
    private func decoded(_ text: String) throws -> ReceivedPush {
        try ReceivedPush(JSONDecoder().decode(PushRequest.self, from: Data(text.utf8)))
    }

    @Test("hand-written bodies read as JSONDecoder reads them")
    func handWritten() throws {
        let bodies = [
            #"{"clientID":"c","mutations":[]}"#,
            #" { "scope" : null , "clientID" : "c\/\"\\\b\f\n\r\t\u00e9\uD83D\uDE00\u0000" , "mutations" : [ ] } "#,
            #"{"clientID":"é😀","scope":"s/1","mutations":[{"id":9223372036854775807,"changes":[]}]}"#,
            #"{"clientID":"c","resultColumns":false,"mutations":[]}"#,
            #"{"resultColumns":null,"clientID":"c","mutations":[]}"#,
            #"{"clientID":"c","mutations":[],"resultColumns":true}"#,
            #"{"clientID":"c","mutations":[{"changes":[{"kind":"delete","table":"todo","id":-9223372036854775808,"baseVersion":null,"columns":null}],"id":1}]}"#,
            #"{"clientID":"c","mutations":[{"id":1,"changes":[{"table":"t","id":{"real":-0.0},"kind":"insert","columns":{}}]}]}"#,
            #"{"clientID":"c","mutations":[{"id":1,"changes":[{"table":"t","id":{"blob":"AAEC/w=="},"kind":"update","baseVersion":-0,"columns":{"a":null,"b":0,"c":-12,"d":"x\"y","e":{"real":1e-7},"f":{"real":2.5E+300},"g":{"real":3},"h":{"blob":""},"":"empty name"}}]}]}"#,
            // Members out of order, names and values escaped or not ASCII, -0, white space.
            #"{"clientID":"c","mutations":[{"id":1,"changes":[{"table":"t","id":"x","kind":"insert","columns":{ "b" : -0 , "a\u0041" : "caf\u00e9\/" , "é" : "é😀", "A" : "\u0001\t" , "ab" : 12, "a" : {"blob":"AA=="} }}]}]}"#,
            #"{"clientID":"c","mutations":[{"id":1,"changes":[{"table":"t","id":"x","kind":"delete","columns":{"z":1,"y":2}}]}]}"#,
        ]
        for body in bodies {
            let fast = try #require(read(body), "\(body)")
            #expect(fast == (try decoded(body)), "\(body)")
        }
    }

    @Test("the extension member is skipped at every level, on the fast path; named twice, the body is left to the checked reader")
    func extensionMember() throws {
        let plain = #"{"clientID":"c","mutations":[{"id":1,"changes":[{"table":"t","id":1,"kind":"insert","columns":{"a":1}}]}]}"#
        let extended = #"{"ext":{"v":[1,{"x":null}]},"clientID":"c","mutations":[{"id":1,"ext":"m","changes":[{"table":"t","id":1,"ext":{},"kind":"insert","columns":{"a":1}}]}]}"#
        let fast = try #require(read(extended))
        #expect(fast == (try decoded(plain)))
        #expect(fast == (try decoded(extended)))
        #expect(read(#"{"ext":1,"clientID":"c","ext":2,"mutations":[]}"#) == nil)
        // Inside a row's columns, "ext" is a column like any other.
        let column = try #require(read(#"{"clientID":"c","mutations":[{"id":1,"changes":[{"table":"t","id":1,"kind":"insert","columns":{"ext":1}}]}]}"#))
        #expect(column.mutations.first?.changes.first?.columnsJSON == #"{"ext":1}"#)
    }

    @Test("bodies outside the written subset are left to JSONDecoder (nil)")
    func leftToJSONDecoder() {
        let bodies = [
            #"{"clientID":"c","mutations":[],"extra":1}"#,                     // another member (JSONDecoder ignores it)
            #"{"clientID":"c","clientID":"d","mutations":[]}"#,                  // a duplicate member
            #"{"clientID":"c","resultColumns":false,"resultColumns":true,"mutations":[]}"#,
            #"{"clientID":"c","resultColumns":0,"mutations":[]}"#,                // not a Bool
            #"{"clientID":"c","mutations":[{"id":1.0,"changes":[]}]}"#,          // an integer written as a real
            #"{"clientID":"c","mutations":[{"id":01,"changes":[]}]}"#,           // not JSON
            #"{"clientID":"c","mutations":[{"id":9223372036854775808,"changes":[]}]}"#,
            #"{"clientID":"\uD800","mutations":[]}"#,                            // a lone surrogate
            "{\"clientID\":\"a\u{1}\",\"mutations\":[]}",                        // a raw control character
            #"{"clientID":"c","mutations":[]} x"#,                                // trailing bytes
            #"{"clientID":"c","mutations":[{"id":1,"changes":[{"table":"t","id":true,"kind":"insert","columns":{}}]}]}"#,
            #"{"clientID":"c","mutations":[{"id":1,"changes":[{"table":"t","id":null,"kind":"insert","columns":{}}]}]}"#,
            #"{"clientID":"c","mutations":[{"id":1,"changes":[{"table":"t","id":1,"kind":"upsert","columns":{}}]}]}"#,
            #"{"clientID":"c","mutations":[{"id":1,"changes":[{"table":"t","id":{"real":1,"blob":""},"kind":"insert"}]}]}"#,
            #"{"clientID":"c","mutations":[{"id":1,"changes":[{"table":"t","id":{"real":1e999},"kind":"insert"}]}]}"#,
            #"{"clientID":"c","mutations":[{"id":1,"changes":[{"table":"t","id":{"blob":"not base64"},"kind":"insert"}]}]}"#,
            #"{"clientID":"c","mutations":[{"id":1,"changes":[{"table":"t","id":1,"kind":"insert","columns":{"a":1,"a":2}}]}]}"#,
            #"{"clientID":"c","mutations":[{"id":1,"changes":[{"table":"t","id":1,"kind":"insert","columns":{"b":1,"a":2,"b":3}}]}]}"#,
            #"{"clientID":"c","mutations":[{"id":1,"changes":[{"table":"t","id":1,"kind":"insert","columns":{"a":1.5}}]}]}"#,
            #"{"clientID":"c","mutations":[{"id":1,"changes":[{"table":"t","id":1,"kind":"insert","columns":{"a":true}}]}]}"#,
            #"{"clientID":"c","mutations":[{"id":1,"changes":[{"table":"t","id":1,"kind":"insert","columns":{"a":{"real":1},"b":{}}}]}]}"#,
            #"{"clientID":"c","mutations":[{"id":1,"changes":[{"table":"t","kind":"insert"}]}]}"#,   // no id
            #"{"clientID":"c","mutations":["#,
            "",
        ]
        for body in bodies { #expect(read(body) == nil, "\(body)") }
        // Bytes that are not UTF-8.
        var invalid = ByteBuffer(string: #"{"clientID":""#)
        invalid.writeBytes([0xC3, 0x28])
        invalid.writeString(#"","mutations":[]}"#)
        #expect(PushBody.decode(invalid) == nil)
        // …in a column's value, which is otherwise copied as it is.
        var invalidValue = ByteBuffer(string: #"{"clientID":"c","mutations":[{"id":1,"changes":[{"table":"t","id":1,"kind":"insert","columns":{"a":""#)
        invalidValue.writeBytes([0xE2, 0x82])
        invalidValue.writeString(#""}}]}]}"#)
        #expect(PushBody.decode(invalidValue) == nil)
    }

    /// Issue 43 item 6: names compare byte for byte, as the databases compare them.
    @Test("canonically equivalent column names are two columns, sorted by their bytes")
    func canonicallyEquivalentNames() throws {
        let body = #"{"clientID":"c","mutations":[{"id":1,"changes":[{"table":"t","id":1,"kind":"insert","columns":{"e\u0301":2,"\u00e9":1,"z":0}}]}]}"#
        let change = try #require(read(body)?.mutations.first?.changes.first)
        #expect(change.columnsJSON.map { Array($0.utf8) } == Array("{\"e\u{301}\":2,\"z\":0,\"\u{E9}\":1}".utf8))
    }

    /// The columns are stored as one text whatever the body's spelling (the replay check
    /// hashes it, pulls serve it): members sorted, values as `WireWriter` writes them.
    @Test("the same columns written differently are stored as the same JSON")
    func columnsStoredCanonically() throws {
        let spellings = [
            #"{"a":"café/","b":0,"c":{"real":0.5},"é":"\u0001"}"#,
            #"{ "é" : "\u0001" , "c" : { "real" : 5e-1 } , "b" : -0 , "\u0061" : "caf\u00e9\/" }"#,
            #"{"b":0,"a":"caf\u00E9/","é":"\u0001","c":{"real":0.50}}"#,
        ]
        for spelling in spellings {
            let body = #"{"clientID":"c","mutations":[{"id":1,"changes":[{"table":"t","id":1,"kind":"insert","columns":"# + spelling + "}]}]}"
            let change = try #require(read(body)?.mutations.first?.changes.first, "\(spelling)")
            #expect(change.columnsJSON == #"{"a":"café/","b":0,"c":{"real":0.5},"é":"\u0001"}"#, "\(spelling)")
            #expect(read(body) == (try decoded(body)), "\(spelling)")
        }
    }

    /// `SWIDUX_PUSH_BODY_CASES` (default 300) random requests, written by `JSONEncoder`.
    @Test("random requests written by JSONEncoder read back equal")
    func randomRequests() throws {
        let cases = Int(ProcessInfo.processInfo.environment["SWIDUX_PUSH_BODY_CASES"] ?? "") ?? 300
        var random = SystemRandomNumberGenerator()
        let alphabet: [Character] = ["a", "Z", "0", " ", "\"", "\\", "/", "\n", "\t", "\u{1}", "\u{7F}", "é", "€", "😀", "\u{FFFF}"]
        func text() -> String { String((0..<Int.random(in: 0...12, using: &random)).map { _ in alphabet.randomElement(using: &random)! }) }
        func value() -> SyncValue {
            switch Int.random(in: 0..<5, using: &random) {
            case 0: .null
            case 1: .integer(Bool.random(using: &random) ? Int64.random(in: .min ... .max, using: &random) : Int64.random(in: -9...9, using: &random))
            case 2: .real(Bool.random(using: &random) ? Double.random(in: -1e300...1e300, using: &random) : Double(Int.random(in: -5...5, using: &random)) / 8)
            case 3: .text(text())
            default: .blob(Data((0..<Int.random(in: 0...9, using: &random)).map { _ in UInt8.random(in: 0...255, using: &random) }))
            }
        }
        // Unsorted with escaped slashes (the fast path's fallbacks), and sorted without (its copies).
        let unsorted = JSONEncoder()
        let sorted = JSONEncoder()
        sorted.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        for index in 0..<cases {
            let encoder = index.isMultiple(of: 2) ? unsorted : sorted
            let request = PushRequest(clientID: text(), mutations: (0..<Int.random(in: 0...3, using: &random)).map { index in
                SyncMutation(id: Int64(index + 1), changes: (0..<Int.random(in: 0...4, using: &random)).map { _ in
                    let kind = [SyncChange.Kind.insert, .update, .delete].randomElement(using: &random)!
                    let columns = kind == .delete ? nil
                        : Dictionary((0..<Int.random(in: 0...5, using: &random)).map { _ in (text(), value()) }, uniquingKeysWith: { a, _ in a })
                    return SyncChange(table: text(), id: Bool.random(using: &random) ? value() : .text(text()), kind: kind,
                                      columns: columns, baseVersion: Bool.random(using: &random) ? Int64.random(in: 0...1_000_000, using: &random) : nil)
                })
            }, scope: Bool.random(using: &random) ? text() : nil, resultColumns: [nil, true, false].randomElement(using: &random)!)
            let data = try encoder.encode(request)
            let text = String(decoding: data, as: UTF8.self)
            // A null id is decoded by JSONDecoder, and left to it here.
            if request.mutations.contains(where: { $0.changes.contains { $0.id == .null } }) {
                #expect(read(text) == nil, "\(text)")
            } else {
                #expect(read(text) == (try ReceivedPush(request)), "\(text)")
            }
        }
    }
}
