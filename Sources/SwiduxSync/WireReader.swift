import Foundation
import SwiduxSyncWire

/// Reads the server's answers — pull pages and push answers — straight from their bytes,
/// without `JSONDecoder` (issue 31: decoding a page of 10,000 rows with it took seconds,
/// most of a first pull). Accepts the JSON `JSONDecoder` accepts for these types; keys it
/// does not know are skipped; anything else is an error naming the byte offset.
struct WireReader {
    struct Failure: Error, CustomStringConvertible {
        let description: String
    }

    private let bytes: [UInt8]
    private var index = 0

    init(_ data: Data) { bytes = [UInt8](data) }

    // MARK: - Answers

    static func pullResponse(_ data: Data) throws -> PullResponse {
        var reader = WireReader(data)
        var page = PullResponse(rows: [], cursor: 0, hasMore: false)
        var sawCursor = false, sawRows = false, sawMore = false
        try reader.object { reader, key in
            switch key {
            case "rows":
                sawRows = true
                try reader.array { reader in page.rows.append(try reader.row()) }
            case "cursor": page.cursor = try reader.integer(); sawCursor = true
            case "hasMore": page.hasMore = try reader.bool(); sawMore = true
            case "end": page.end = try reader.optional { try $0.integer() }
            case "scope": page.scope = try reader.optional { try $0.string() }
            default: try reader.skipValue()
            }
        }
        try reader.end()
        guard sawRows, sawCursor, sawMore else { throw Failure(description: "a pull answer without rows, cursor or hasMore") }
        return page
    }

    static func pushAnswer(_ data: Data) throws -> PushAnswer {
        var reader = WireReader(data)
        var answer = PushAnswer(PushResponse(lastMutationID: 0, results: []))
        var sawLast = false, sawResults = false
        try reader.object { reader, key in
            switch key {
            case "lastMutationID": answer.lastMutationID = try reader.integer(); sawLast = true
            case "results":
                sawResults = true
                try reader.array { reader in answer.results.append(try reader.result()) }
            case "acknowledged":
                answer.acknowledged = try reader.optional { reader in
                    var ids: [Int64] = []
                    try reader.array { ids.append(try $0.integer()) }
                    return ids
                }
            case "scope": answer.scope = try reader.optional { try $0.string() }
            default: try reader.skipValue()
            }
        }
        try reader.end()
        guard sawLast, sawResults else { throw Failure(description: "a push answer without lastMutationID or results") }
        return answer
    }

    private mutating func row() throws -> SyncRow {
        var table: String?, id: SyncValue?, version: Int64?, deleted: Bool?
        var columns: [String: SyncValue]?
        try object { reader, key in
            switch key {
            case "table": table = try reader.string()
            case "id": id = try reader.value()
            case "version": version = try reader.integer()
            case "deleted": deleted = try reader.bool()
            case "columns":
                columns = try reader.optional { reader in
                    var values: [String: SyncValue] = [:]
                    try reader.object { reader, name in values[name] = try reader.value() }
                    return values
                }
            default: try reader.skipValue()
            }
        }
        guard let table, let id, let version, let deleted else { throw failure("a row without table, id, version or deleted") }
        return SyncRow(table: table, id: id, version: version, deleted: deleted, columns: columns)
    }

    private mutating func result() throws -> PushAnswer.Result {
        var table: String?, id: SyncValue?, applied: Bool?, current: PushAnswer.Current?
        try object { reader, key in
            switch key {
            case "table": table = try reader.string()
            case "id": id = try reader.value()
            case "applied": applied = try reader.bool()
            case "current":
                var version: Int64?, deleted: Bool?
                try reader.object { reader, key in
                    switch key {
                    case "version": version = try reader.integer()
                    case "deleted": deleted = try reader.bool()
                    default: try reader.skipValue()
                    }
                }
                guard let version, let deleted else { throw reader.failure("a result's row without version or deleted") }
                current = PushAnswer.Current(version: version, deleted: deleted)
            default: try reader.skipValue()
            }
        }
        guard let table, let id, let applied, let current else { throw failure("a result without table, id, applied or current") }
        return PushAnswer.Result(table: table, id: id, applied: applied, current: current)
    }

    /// A ``SyncValue`` in its JSON form.
    private mutating func value() throws -> SyncValue {
        skipSpace()
        guard index < bytes.count else { throw failure("a value was expected") }
        switch bytes[index] {
        case UInt8(ascii: "n"): try literal("null"); return .null
        case UInt8(ascii: "\""): return .text(try string())
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): return .integer(try integer())
        case UInt8(ascii: "{"):
            var result: SyncValue?
            try object { reader, key in
                switch key {
                case "real": result = .real(try reader.double())
                case "blob":
                    let text = try reader.string()
                    guard let data = Data(base64Encoded: text) else { throw reader.failure("a blob that is not base64") }
                    result = .blob(data)
                default: try reader.skipValue()
                }
            }
            guard let result else { throw failure("a sync value is null, an integer, a string, {\"real\": number} or {\"blob\": base64}") }
            return result
        default:
            throw failure("a sync value is null, an integer, a string, {\"real\": number} or {\"blob\": base64}")
        }
    }

    // MARK: - JSON

    private func failure(_ what: String) -> Failure {
        Failure(description: "\(what) (at byte \(index))")
    }

    private mutating func skipSpace() {
        while index < bytes.count {
            switch bytes[index] {
            case 0x20, 0x0A, 0x0D, 0x09: index += 1
            default: return
            }
        }
    }

    private mutating func expect(_ byte: UInt8) throws {
        skipSpace()
        guard index < bytes.count, bytes[index] == byte else { throw failure("'\(Character(UnicodeScalar(byte)))' was expected") }
        index += 1
    }

    /// `true` (and consumed) when the next byte is `byte`.
    private mutating func take(_ byte: UInt8) -> Bool {
        skipSpace()
        if index < bytes.count, bytes[index] == byte {
            index += 1
            return true
        }
        return false
    }

    private mutating func literal(_ text: StaticString) throws {
        skipSpace()
        let count = text.utf8CodeUnitCount
        guard index + count <= bytes.count else { throw failure("\(text) was expected") }
        let matches = text.withUTF8Buffer { expected in
            (0..<count).allSatisfy { bytes[index + $0] == expected[$0] }
        }
        guard matches else { throw failure("\(text) was expected") }
        index += count
    }

    private mutating func end() throws {
        skipSpace()
        guard index == bytes.count else { throw failure("the end was expected") }
    }

    private mutating func object(_ member: (inout WireReader, String) throws -> Void) throws {
        try expect(UInt8(ascii: "{"))
        if take(UInt8(ascii: "}")) { return }
        repeat {
            let key = try string()
            try expect(UInt8(ascii: ":"))
            try member(&self, key)
        } while take(UInt8(ascii: ","))
        try expect(UInt8(ascii: "}"))
    }

    private mutating func array(_ element: (inout WireReader) throws -> Void) throws {
        try expect(UInt8(ascii: "["))
        if take(UInt8(ascii: "]")) { return }
        repeat { try element(&self) } while take(UInt8(ascii: ","))
        try expect(UInt8(ascii: "]"))
    }

    private mutating func optional<T>(_ read: (inout WireReader) throws -> T) throws -> T? {
        skipSpace()
        if index < bytes.count, bytes[index] == UInt8(ascii: "n") {
            try literal("null")
            return nil
        }
        return try read(&self)
    }

    private mutating func bool() throws -> Bool {
        skipSpace()
        if index < bytes.count, bytes[index] == UInt8(ascii: "t") {
            try literal("true")
            return true
        }
        try literal("false")
        return false
    }

    /// An integer that fits `Int64` (no fraction, no exponent).
    private mutating func integer() throws -> Int64 {
        skipSpace()
        let start = index
        let negative = index < bytes.count && bytes[index] == UInt8(ascii: "-")
        if negative { index += 1 }
        var value: Int64 = 0
        var digits = 0
        while index < bytes.count, (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(bytes[index]) {
            let digit = Int64(bytes[index] - UInt8(ascii: "0"))
            let (times, overflow1) = value.multipliedReportingOverflow(by: 10)
            let (next, overflow2) = negative ? times.subtractingReportingOverflow(digit) : times.addingReportingOverflow(digit)
            guard !overflow1, !overflow2 else { index = start; throw failure("an integer out of the 64-bit range") }
            value = next
            digits += 1
            index += 1
        }
        guard digits > 0 else { index = start; throw failure("an integer was expected") }
        if index < bytes.count, [UInt8(ascii: "."), UInt8(ascii: "e"), UInt8(ascii: "E")].contains(bytes[index]) {
            index = start
            throw failure("an integer was expected, not a number with a fraction or an exponent")
        }
        return value
    }

    private mutating func double() throws -> Double {
        skipSpace()
        let start = index
        while index < bytes.count, "+-.eE0123456789".utf8.contains(bytes[index]) { index += 1 }
        guard index > start, let value = Double(String(decoding: bytes[start..<index], as: UTF8.self)) else {
            index = start
            throw failure("a number was expected")
        }
        return value
    }

    private mutating func string() throws -> String {
        try expect(UInt8(ascii: "\""))
        let start = index
        // Fast path: no escape.
        while index < bytes.count {
            let byte = bytes[index]
            if byte == UInt8(ascii: "\"") {
                defer { index += 1 }
                return String(decoding: bytes[start..<index], as: UTF8.self)
            }
            if byte == UInt8(ascii: "\\") { break }
            if byte < 0x20 { throw failure("a control character in a string") }
            index += 1
        }
        var text = Array(bytes[start..<index])
        while index < bytes.count {
            let byte = bytes[index]
            index += 1
            switch byte {
            case UInt8(ascii: "\""):
                return String(decoding: text, as: UTF8.self)
            case UInt8(ascii: "\\"):
                guard index < bytes.count else { throw failure("an unfinished string") }
                let escaped = bytes[index]
                index += 1
                switch escaped {
                case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"): text.append(escaped)
                case UInt8(ascii: "b"): text.append(0x08)
                case UInt8(ascii: "f"): text.append(0x0C)
                case UInt8(ascii: "n"): text.append(0x0A)
                case UInt8(ascii: "r"): text.append(0x0D)
                case UInt8(ascii: "t"): text.append(0x09)
                case UInt8(ascii: "u"):
                    var scalar = try hex4()
                    if (0xD800..<0xDC00).contains(scalar) {
                        // A surrogate pair.
                        guard index + 1 < bytes.count, bytes[index] == UInt8(ascii: "\\"), bytes[index + 1] == UInt8(ascii: "u") else {
                            throw failure("an unpaired surrogate in a string")
                        }
                        index += 2
                        let low = try hex4()
                        guard (0xDC00..<0xE000).contains(low) else { throw failure("an unpaired surrogate in a string") }
                        scalar = 0x10000 + ((scalar - 0xD800) << 10) + (low - 0xDC00)
                    }
                    guard let unicode = Unicode.Scalar(scalar) else { throw failure("an invalid \\u escape") }
                    text.append(contentsOf: Array(String(Character(unicode)).utf8))
                default: throw failure("an invalid escape in a string")
                }
            default:
                if byte < 0x20 { throw failure("a control character in a string") }
                text.append(byte)
            }
        }
        throw failure("an unfinished string")
    }

    private mutating func hex4() throws -> UInt32 {
        guard index + 4 <= bytes.count, let value = UInt32(String(decoding: bytes[index..<index + 4], as: UTF8.self), radix: 16) else {
            throw failure("an invalid \\u escape")
        }
        index += 4
        return value
    }

    /// Skips any JSON value.
    private mutating func skipValue() throws {
        skipSpace()
        guard index < bytes.count else { throw failure("a value was expected") }
        switch bytes[index] {
        case UInt8(ascii: "{"): try object { reader, _ in try reader.skipValue() }
        case UInt8(ascii: "["): try array { try $0.skipValue() }
        case UInt8(ascii: "\""): _ = try string()
        case UInt8(ascii: "t"): try literal("true")
        case UInt8(ascii: "f"): try literal("false")
        case UInt8(ascii: "n"): try literal("null")
        default: _ = try double()
        }
    }
}
