import Foundation
import NIOCore
import SwiduxSyncWire

/// A hand-written reader of `POST /v1/push` bodies (issue 31 item 3): `JSONDecoder` was
/// two thirds of the server's time in a large push (a thrown error per text value, in
/// ``SwiduxSyncWire/SyncValue``'s decoding, and a coding path per value).
///
/// It reads the JSON every client writes — the members ``SwiduxSyncWire/PushRequest``,
/// ``SwiduxSyncWire/SyncMutation`` and ``SwiduxSyncWire/SyncChange`` declare, each once,
/// integers as plain digits — into the same values `JSONDecoder` gives. For anything else
/// (another member, a duplicate, `1.0` for an integer, invalid UTF-8, a malformed document)
/// it answers `nil`, and the caller decodes with `JSONDecoder`, whose error names the cause:
/// what it accepts, and its messages, do not change.
///
/// ```swift
/// let request = PushBody.decode(buffer) ?? (try JSONDecoder().decode(PushRequest.self, from: Data(buffer.readableBytesView)))
/// ```
struct PushBody {
    /// Not in the subset read here: decode with `JSONDecoder` instead.
    private struct Unsupported: Error {}

    private let bytes: UnsafeRawBufferPointer
    private var index = 0

    /// The request, or `nil` when the body is not in the subset read here.
    static func decode(_ buffer: ByteBuffer) -> PushRequest? {
        buffer.withUnsafeReadableBytes { bytes in
            var reader = PushBody(bytes: bytes)
            return try? reader.document()
        }
    }

    private init(bytes: UnsafeRawBufferPointer) {
        self.bytes = bytes
    }

    private mutating func document() throws -> PushRequest {
        let request = try pushRequest()
        skipSpace()
        guard index == bytes.count else { throw Unsupported() }
        return request
    }

    // MARK: The messages

    private mutating func pushRequest() throws -> PushRequest {
        var clientID: String?, mutations: [SyncMutation]?, scope: String??
        try members { reader, key in
            switch key {
            case "clientID" where clientID == nil: clientID = try reader.string()
            case "mutations" where mutations == nil: mutations = try reader.array { try $0.mutation() }
            case "scope" where scope == nil: scope = .some(try reader.isNull() ? nil : reader.string())
            default: throw Unsupported()
            }
        }
        guard let clientID, let mutations else { throw Unsupported() }
        return PushRequest(clientID: clientID, mutations: mutations, scope: scope ?? nil)
    }

    private mutating func mutation() throws -> SyncMutation {
        var id: Int64?, changes: [SyncChange]?
        try members { reader, key in
            switch key {
            case "id" where id == nil: id = try reader.integer()
            case "changes" where changes == nil: changes = try reader.array { try $0.change() }
            default: throw Unsupported()
            }
        }
        guard let id, let changes else { throw Unsupported() }
        return SyncMutation(id: id, changes: changes)
    }

    private mutating func change() throws -> SyncChange {
        var table: String?, id: SyncValue?, kind: SyncChange.Kind?
        var columns: [String: SyncValue]??, baseVersion: Int64??
        try members { reader, key in
            switch key {
            case "table" where table == nil: table = try reader.string()
            case "id" where id == nil:
                guard try !reader.isNull() else { throw Unsupported() }
                id = try reader.value()
            case "kind" where kind == nil:
                guard let known = SyncChange.Kind(rawValue: try reader.string()) else { throw Unsupported() }
                kind = known
            case "columns" where columns == nil: columns = .some(try reader.isNull() ? nil : reader.columns())
            case "baseVersion" where baseVersion == nil: baseVersion = .some(try reader.isNull() ? nil : reader.integer())
            default: throw Unsupported()
            }
        }
        guard let table, let id, let kind else { throw Unsupported() }
        return SyncChange(table: table, id: id, kind: kind, columns: columns ?? nil, baseVersion: baseVersion ?? nil)
    }

    private mutating func columns() throws -> [String: SyncValue] {
        var columns: [String: SyncValue] = [:]
        try members { reader, name in
            guard columns.updateValue(try reader.value(), forKey: name) == nil else { throw Unsupported() }
        }
        return columns
    }

    /// A ``SwiduxSyncWire/SyncValue``: `null`, an integer, a string, `{"real":n}` or `{"blob":"base64"}`.
    private mutating func value() throws -> SyncValue {
        skipSpace()
        guard index < bytes.count else { throw Unsupported() }
        switch bytes[index] {
        case UInt8(ascii: "n"):
            try literal("null")
            return .null
        case UInt8(ascii: "\""): return .text(try string())
        case UInt8(ascii: "{"):
            var value: SyncValue?
            try members { reader, key in
                guard value == nil else { throw Unsupported() }
                switch key {
                case "real": value = .real(try reader.real())
                case "blob":
                    guard let data = Data(base64Encoded: try reader.string()) else { throw Unsupported() }
                    value = .blob(data)
                default: throw Unsupported()
                }
            }
            guard let value else { throw Unsupported() }
            return value
        default: return .integer(try integer())
        }
    }

    // MARK: JSON

    private mutating func skipSpace() {
        while index < bytes.count {
            switch bytes[index] {
            case 0x20, 0x0A, 0x0D, 0x09: index += 1
            default: return
            }
        }
    }

    /// Skips `byte` (after white space), or throws.
    private mutating func expect(_ byte: UInt8) throws {
        skipSpace()
        guard index < bytes.count, bytes[index] == byte else { throw Unsupported() }
        index += 1
    }

    /// Whether the next byte (after white space) is `byte`, skipping it if so.
    private mutating func skip(_ byte: UInt8) -> Bool {
        skipSpace()
        guard index < bytes.count, bytes[index] == byte else { return false }
        index += 1
        return true
    }

    private mutating func literal(_ word: StaticString) throws {
        let count = word.utf8CodeUnitCount
        guard bytes.count - index >= count else { throw Unsupported() }
        for offset in 0..<count where bytes[index + offset] != word.utf8Start[offset] { throw Unsupported() }
        index += count
    }

    /// Whether the next value is `null`, skipping it if so.
    private mutating func isNull() throws -> Bool {
        skipSpace()
        guard index < bytes.count, bytes[index] == UInt8(ascii: "n") else { return false }
        try literal("null")
        return true
    }

    /// An object: `body` reads each member's value after its key.
    private mutating func members(_ body: (inout PushBody, String) throws -> Void) throws {
        try expect(UInt8(ascii: "{"))
        if skip(UInt8(ascii: "}")) { return }
        repeat {
            skipSpace()
            let key = try string()
            try expect(UInt8(ascii: ":"))
            try body(&self, key)
        } while skip(UInt8(ascii: ","))
        try expect(UInt8(ascii: "}"))
    }

    private mutating func array<Element>(_ element: (inout PushBody) throws -> Element) throws -> [Element] {
        try expect(UInt8(ascii: "["))
        var elements: [Element] = []
        if skip(UInt8(ascii: "]")) { return elements }
        repeat { elements.append(try element(&self)) } while skip(UInt8(ascii: ","))
        try expect(UInt8(ascii: "]"))
        return elements
    }

    /// An integer written as plain digits (`-?(0|[1-9][0-9]*)`) that fits an `Int64`.
    private mutating func integer() throws -> Int64 {
        skipSpace()
        let negative = index < bytes.count && bytes[index] == UInt8(ascii: "-")
        if negative { index += 1 }
        let start = index
        var magnitude: UInt64 = 0
        while index < bytes.count, bytes[index] &- UInt8(ascii: "0") < 10 {
            let digit = bytes[index] &- UInt8(ascii: "0")
            let (times, overflow) = magnitude.multipliedReportingOverflow(by: 10)
            let (sum, carry) = times.addingReportingOverflow(UInt64(digit))
            guard !overflow, !carry else { throw Unsupported() }
            magnitude = sum
            index += 1
        }
        let count = index - start
        guard count > 0, count == 1 || bytes[start] != UInt8(ascii: "0") else { throw Unsupported() }
        if index < bytes.count {
            switch bytes[index] {
            case UInt8(ascii: "."), UInt8(ascii: "e"), UInt8(ascii: "E"): throw Unsupported()
            default: break
            }
        }
        if negative {
            guard magnitude <= UInt64(Int64.max) + 1 else { throw Unsupported() }
            return magnitude == UInt64(Int64.max) + 1 ? .min : -Int64(magnitude)
        }
        guard magnitude <= UInt64(Int64.max) else { throw Unsupported() }
        return Int64(magnitude)
    }

    /// A finite number in JSON's grammar, as a `Double`.
    private mutating func real() throws -> Double {
        skipSpace()
        let start = index
        func digits(_ reader: inout PushBody) -> Int {
            let first = reader.index
            while reader.index < reader.bytes.count, reader.bytes[reader.index] &- UInt8(ascii: "0") < 10 { reader.index += 1 }
            return reader.index - first
        }
        if index < bytes.count, bytes[index] == UInt8(ascii: "-") { index += 1 }
        let integerStart = index
        let integerDigits = digits(&self)
        guard integerDigits > 0, integerDigits == 1 || bytes[integerStart] != UInt8(ascii: "0") else { throw Unsupported() }
        if index < bytes.count, bytes[index] == UInt8(ascii: ".") {
            index += 1
            guard digits(&self) > 0 else { throw Unsupported() }
        }
        if index < bytes.count, bytes[index] == UInt8(ascii: "e") || bytes[index] == UInt8(ascii: "E") {
            index += 1
            if index < bytes.count, bytes[index] == UInt8(ascii: "+") || bytes[index] == UInt8(ascii: "-") { index += 1 }
            guard digits(&self) > 0 else { throw Unsupported() }
        }
        let text = String(decoding: UnsafeRawBufferPointer(rebasing: bytes[start..<index]), as: UTF8.self)
        guard let real = Double(text), real.isFinite else { throw Unsupported() }
        return real
    }

    /// A string: its escapes decoded; `Unsupported` for a raw control character, a lone
    /// surrogate or invalid UTF-8.
    private mutating func string() throws -> String {
        skipSpace()
        guard index < bytes.count, bytes[index] == UInt8(ascii: "\"") else { throw Unsupported() }
        index += 1
        let start = index
        while index < bytes.count {
            let byte = bytes[index]
            if byte == UInt8(ascii: "\"") {
                let text = try Self.validated(UnsafeRawBufferPointer(rebasing: bytes[start..<index]))
                index += 1
                return text
            }
            if byte == UInt8(ascii: "\\") { break }
            guard byte >= 0x20 else { throw Unsupported() }
            index += 1
        }
        // Escapes: decoded into a copy.
        var decoded = Array(UnsafeRawBufferPointer(rebasing: bytes[start..<index]))
        while index < bytes.count {
            let byte = bytes[index]
            index += 1
            switch byte {
            case UInt8(ascii: "\""): return try decoded.withUnsafeBytes { try Self.validated($0) }
            case UInt8(ascii: "\\"):
                guard index < bytes.count else { throw Unsupported() }
                let escape = bytes[index]
                index += 1
                switch escape {
                case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"): decoded.append(escape)
                case UInt8(ascii: "b"): decoded.append(0x08)
                case UInt8(ascii: "f"): decoded.append(0x0C)
                case UInt8(ascii: "n"): decoded.append(0x0A)
                case UInt8(ascii: "r"): decoded.append(0x0D)
                case UInt8(ascii: "t"): decoded.append(0x09)
                case UInt8(ascii: "u"):
                    var scalar = try hex4()
                    if (0xD800..<0xDC00).contains(scalar) {
                        try literal("\\u")
                        let low = try hex4()
                        guard (0xDC00..<0xE000).contains(low) else { throw Unsupported() }
                        scalar = 0x10000 + ((scalar - 0xD800) << 10) + (low - 0xDC00)
                    }
                    guard let unicode = Unicode.Scalar(scalar) else { throw Unsupported() }
                    decoded.append(contentsOf: String(Character(unicode)).utf8)
                default: throw Unsupported()
                }
            default:
                guard byte >= 0x20 else { throw Unsupported() }
                decoded.append(byte)
            }
        }
        throw Unsupported()
    }

    private mutating func hex4() throws -> UInt32 {
        guard bytes.count - index >= 4 else { throw Unsupported() }
        var value: UInt32 = 0
        for _ in 0..<4 {
            let byte = bytes[index]
            let digit: UInt8
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = byte - UInt8(ascii: "0")
            case UInt8(ascii: "a")...UInt8(ascii: "f"): digit = byte - UInt8(ascii: "a") + 10
            case UInt8(ascii: "A")...UInt8(ascii: "F"): digit = byte - UInt8(ascii: "A") + 10
            default: throw Unsupported()
            }
            value = value << 4 | UInt32(digit)
            index += 1
        }
        return value
    }

    private static func validated(_ utf8: UnsafeRawBufferPointer) throws -> String {
        guard let text = String(validating: utf8, as: UTF8.self) else { throw Unsupported() }
        return text
    }
}
