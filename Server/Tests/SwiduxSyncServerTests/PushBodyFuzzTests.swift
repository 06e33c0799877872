import Foundation
import NIOCore
import SwiduxTesting
import SwiduxSyncWire
import Testing
@testable import SwiduxSyncServer

/// A differential fuzz of push bodies. The server's reader (the hand-written one, else the
/// layout check and `JSONDecoder`) accepts exactly the bodies the standard reader accepts —
/// `JSONDecoder`, on documents `JSONSerialization` finds valid — but refuses those naming a
/// member twice, and reads the same values. Foundation's reader on Linux also takes a comma
/// before `}` or `]`, which RFC 8259 does not: the server refuses those, and they are not
/// compared.
@Suite("Push body differential fuzz")
struct PushBodyFuzzTests {
    /// The server's reading of `text`, as the push route reads it.
    private func server(_ data: Data) -> Result<ReceivedPush, any Error> {
        Result { try PushBody.read(ByteBuffer(bytes: data)) { try JSONDecoder().decode(PushRequest.self, from: Data($0.readableBytesView)) } }
    }

    /// The standard reading: `nil` when `JSONSerialization` or `JSONDecoder` refuses it (or
    /// its columns cannot be stored).
    private func standard(_ data: Data) -> ReceivedPush? {
        guard (try? JSONSerialization.jsonObject(with: data, options: [])) != nil,
              let request = try? JSONDecoder().decode(PushRequest.self, from: data) else { return nil }
        return try? ReceivedPush(request)
    }

    /// Whether a comma outside strings is followed (after white space) by `}` or `]`.
    private func hasTrailingComma(_ bytes: [UInt8]) -> Bool {
        var inString = false, escaped = false, afterComma = false
        for byte in bytes {
            if inString {
                if escaped { escaped = false } else if byte == UInt8(ascii: "\\") { escaped = true } else if byte == UInt8(ascii: "\"") { inString = false }
                continue
            }
            switch byte {
            case UInt8(ascii: " "), UInt8(ascii: "\n"), UInt8(ascii: "\t"), UInt8(ascii: "\r"): continue
            case UInt8(ascii: "}"), UInt8(ascii: "]"): if afterComma { return true }
            case UInt8(ascii: "\""): inString = true
            default: break
            }
            afterComma = byte == UInt8(ascii: ",")
        }
        return false
    }

    /// Whether an object of the document names a member twice (the same bytes), read
    /// independently of the server's check; `nil` when it is not JSON.
    private func hasDuplicate(_ data: Data) -> Bool? {
        data.withUnsafeBytes { bytes -> Bool? in
            var scanner = WireReader(bytes)
            var found = false
            func walk(_ scanner: inout WireReader) throws {
                switch scanner.peek() {
                case UInt8(ascii: "{"):
                    var names = Set<[UInt8]>()
                    try scanner.object { scanner, name in
                        if !names.insert(Array(name.utf8)).inserted { found = true }
                        try walk(&scanner)
                    }
                case UInt8(ascii: "["): try scanner.array { try walk(&$0) }
                default: try scanner.skipValue()
                }
            }
            do {
                try walk(&scanner)
                try scanner.end()
            } catch { return nil }
            return found
        }
    }

    /// `SWIDUX_PUSH_BODY_FUZZ_CASES` (default 2,000) bodies: valid ones written by
    /// `JSONEncoder`, then edited at random (bytes deleted, inserted or replaced, members
    /// repeated or added, numbers respelled, white space, truncation), from the seed
    /// `SWIDUX_PUSH_BODY_FUZZ_SEED` (default: a new one, printed with any failure).
    @Test("the server's reader accepts what the standard reader accepts, refuses duplicates, reads the same values")
    func differential() throws {
        let cases = Int(ProcessInfo.processInfo.environment["SWIDUX_PUSH_BODY_FUZZ_CASES"] ?? "") ?? 2000
        let seed = UInt64(ProcessInfo.processInfo.environment["SWIDUX_PUSH_BODY_FUZZ_SEED"] ?? "") ?? UInt64.random(in: 0...UInt64.max)
        var random = SeededRandomNumberGenerator(seed: seed)
        let alphabet: [Character] = ["a", "b", "Z", "0", " ", "\"", "\\", "/", "\n", "\u{1}", "é", "€", "😀"]
        func text() -> String { String((0..<Int.random(in: 0...6, using: &random)).map { _ in alphabet.randomElement(using: &random)! }) }
        func value() -> SyncValue {
            switch Int.random(in: 0..<5, using: &random) {
            case 0: .null
            case 1: .integer(Int64.random(in: -1000...1000, using: &random))
            case 2: .real(Double(Int.random(in: -50...50, using: &random)) / 8)
            case 3: .text(text())
            default: .blob(Data((0..<Int.random(in: 0...4, using: &random)).map { _ in UInt8.random(in: 0...255, using: &random) }))
            }
        }
        let tokens = [" ", "\n", ",", ":", "{", "}", "[", "]", "\"", "\\", "0", "1", "-", ".", "e", "1.0", "1e2", "-0", "01", "null",
                      "true", "\"x\"", #"{"real":1}"#, #"{"real":1,"real":2}"#, "\\u00e9", "\\ud800", "é"]
        let members = [#""kind":"insert","#, #""id":1,"#, #""table":"todo","#, #""clientID":"c","#, #""mutations":[],"#,
                       #""columns":{},"#, #""extra":1,"#, #""a":1,"#, #""changes":[],"#, #""scope":null,"#, #""baseVersion":1,"#]
        var accepted = 0, duplicates = 0
        for _ in 0..<cases {
            let request = PushRequest(clientID: text(), mutations: (0..<Int.random(in: 0...2, using: &random)).map { index in
                SyncMutation(id: Int64(index + 1), changes: (0..<Int.random(in: 0...3, using: &random)).map { _ in
                    let kind = [SyncChange.Kind.insert, .update, .delete].randomElement(using: &random)!
                    let columns = kind == .delete ? nil
                        : Dictionary((0..<Int.random(in: 0...4, using: &random)).map { _ in (text(), value()) }, uniquingKeysWith: { a, _ in a })
                    return SyncChange(table: "todo", id: Bool.random(using: &random) ? value() : .text(text()), kind: kind, columns: columns,
                                      baseVersion: Bool.random(using: &random) ? Int64.random(in: 0...99, using: &random) : nil)
                })
            }, scope: Bool.random(using: &random) ? text() : nil, resultColumns: [nil, true, false].randomElement(using: &random)!)
            let encoder = JSONEncoder()
            if Bool.random(using: &random) { encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes] }
            var bytes = Array(try encoder.encode(request))
            for _ in 0..<Int.random(in: 0...3, using: &random) {
                let place = Int.random(in: 0...bytes.count, using: &random)
                switch Int.random(in: 0..<6, using: &random) {
                case 0 where place < bytes.count: bytes.remove(at: place)
                case 1: bytes.insert(contentsOf: tokens.randomElement(using: &random)!.utf8, at: place)
                case 2 where place < bytes.count: bytes[place] = tokens.randomElement(using: &random)!.utf8.first!
                case 3:
                    // A member after an object's `{`: repeated, unknown, or of another level.
                    if let brace = bytes[place...].firstIndex(of: UInt8(ascii: "{")) {
                        bytes.insert(contentsOf: members.randomElement(using: &random)!.utf8, at: brace + 1)
                    }
                case 4: bytes.removeLast(Int.random(in: 0...min(3, bytes.count), using: &random))
                default: bytes.insert(contentsOf: [UInt8(ascii: " ")], at: place)
                }
            }
            let data = Data(bytes)
            let body = "seed \(seed): " + String(decoding: data, as: UTF8.self)
            let expected = hasTrailingComma(bytes) ? nil : standard(data)
            let read = server(data)
            switch (expected, read) {
            case (nil, .success(let received)):
                Issue.record("the server read a body the standard reader refuses: \(body) → \(received)")
            case (nil, .failure):
                break
            case (let expected?, .success(let received)):
                accepted += 1
                #expect(hasDuplicate(data) != true, "a member named twice was read: \(body)")
                #expect(received == expected, "\(body)")
            case (_?, .failure(let error)):
                let refusal = (error as? RequestFailure)?.description ?? "\(error)"
                if hasDuplicate(data) == true, refusal.contains("appears twice") {
                    duplicates += 1
                } else {
                    Issue.record("the server refused a body the standard reader reads: \(body): \(refusal)")
                }
            }
        }
        // The edits leave a fair share of bodies readable, some with a member named twice.
        #expect(accepted > cases / 10, "\(accepted) of \(cases) read")
        #expect(duplicates > 0 || cases < 500, "\(duplicates) duplicates refused")
    }
}
