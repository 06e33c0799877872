import Foundation

/// A cursor over the bytes of one JSON document: the lexical layer under ``WireReader``,
/// the one reader of sync messages (the client's pages and answers, the server's pushes),
/// which reads large pages and pushes without `JSONDecoder`'s cost per value.
///
/// It reads JSON's grammar strictly: a string must be valid UTF-8 without raw control
/// characters or lone surrogates; a number has no leading zero; an ``integer()`` has no
/// fraction or exponent and fits `Int64`. Every error is a ``Failure`` naming what was
/// expected and the byte offset.
///
/// The bytes must stay valid while the scanner is used:
///
/// ```swift
/// let total = try data.withUnsafeBytes { bytes in
///     var scanner = JSONScanner(bytes)
///     var sum: Int64 = 0
///     try scanner.array { sum += try $0.integer() }   // [1, 2, 3]
///     try scanner.end()
///     return sum
/// }
/// ```
@usableFromInline
package struct JSONScanner {
    /// Why a document could not be read, and where (the reader's public error).
    @usableFromInline package typealias Failure = WireReader.Failure

    @usableFromInline let bytes: UnsafeRawBufferPointer
    @usableFromInline var position = 0

    /// A scanner at the start of `bytes`.
    @inlinable
    package init(_ bytes: UnsafeRawBufferPointer) {
        self.bytes = bytes
    }

    /// The offset of the next byte to read.
    @inlinable package var offset: Int { position }

    /// A ``Failure`` at the current offset.
    @usableFromInline
    package func failure(_ reason: String) -> WireReader.Failure {
        Failure(reason: reason, offset: position)
    }

    // MARK: Structure

    /// The next byte after white space, not consumed; `nil` at the end.
    @inlinable
    package mutating func peek() -> UInt8? {
        skipSpace()
        return position < bytes.count ? bytes[position] : nil
    }

    @inlinable
    mutating func skipSpace() {
        while position < bytes.count {
            switch bytes[position] {
            case 0x20, 0x0A, 0x0D, 0x09: position += 1
            default: return
            }
        }
    }

    /// Consumes `byte` after white space, or throws.
    @inlinable
    package mutating func expect(_ byte: UInt8) throws {
        guard skip(byte) else { throw failure("'\(Character(Unicode.Scalar(byte)))' was expected") }
    }

    /// Whether the next byte after white space is `byte`; consumed if so.
    @inlinable
    package mutating func skip(_ byte: UInt8) -> Bool {
        guard peek() == byte else { return false }
        position += 1
        return true
    }

    /// Consumes the ASCII word `word` (`true`, `null`…) after white space, or throws.
    @inlinable
    package mutating func literal(_ word: StaticString) throws {
        skipSpace()
        let count = word.utf8CodeUnitCount
        guard bytes.count - position >= count,
              (0..<count).allSatisfy({ bytes[position + $0] == word.utf8Start[$0] })
        else { throw failure("\(word) was expected") }
        position += count
    }

    /// Throws unless only white space is left.
    @usableFromInline
    package mutating func end() throws {
        guard peek() == nil else { throw failure("the end of the document was expected") }
    }

    /// An object: `member` reads each member's value, given its key.
    @inlinable
    package mutating func object(_ member: (inout JSONScanner, String) throws -> Void) throws {
        try expect(UInt8(ascii: "{"))
        if skip(UInt8(ascii: "}")) { return }
        repeat {
            let key = try string()
            try expect(UInt8(ascii: ":"))
            try member(&self, key)
        } while skip(UInt8(ascii: ","))
        try expect(UInt8(ascii: "}"))
    }

    /// An array: `element` reads each element.
    @inlinable
    package mutating func array(_ element: (inout JSONScanner) throws -> Void) throws {
        try expect(UInt8(ascii: "["))
        if skip(UInt8(ascii: "]")) { return }
        repeat { try element(&self) } while skip(UInt8(ascii: ","))
        try expect(UInt8(ascii: "]"))
    }

    /// Whether the next value is `null`; consumed if so.
    @inlinable
    package mutating func isNull() throws -> Bool {
        guard peek() == UInt8(ascii: "n") else { return false }
        try literal("null")
        return true
    }

    /// Skips any value, checked as strictly as reading it, without making its strings or
    /// numbers (a push answer's echoed columns, skipped by the client, cost more
    /// than the rest of the answer).
    @usableFromInline
    package mutating func skipValue() throws {
        switch peek() {
        case UInt8(ascii: "{"):
            try expect(UInt8(ascii: "{"))
            if skip(UInt8(ascii: "}")) { return }
            repeat {
                try expect(UInt8(ascii: "\""))
                try skipString()
                try expect(UInt8(ascii: ":"))
                try skipValue()
            } while skip(UInt8(ascii: ","))
            try expect(UInt8(ascii: "}"))
        case UInt8(ascii: "["): try array { try $0.skipValue() }
        case UInt8(ascii: "\""):
            position += 1
            try skipString()
        case UInt8(ascii: "t"): try literal("true")
        case UInt8(ascii: "f"): try literal("false")
        case UInt8(ascii: "n"): try literal("null")
        case nil: throw failure("a value was expected")
        default: try skipNumber()
        }
    }

    /// Skips the rest of a string (after its quote). ASCII without escapes is checked in
    /// place; anything else is read by ``string()``.
    mutating func skipString() throws {
        let start = position
        while position < bytes.count {
            let byte = bytes[position]
            if byte == UInt8(ascii: "\"") {
                position += 1
                return
            }
            if byte == UInt8(ascii: "\\") || byte < 0x20 || byte >= 0x80 { break }
            position += 1
        }
        position = start - 1
        _ = try string()
    }

    /// Skips a number. A plain integer of at most 15 digits is finite and checked in place;
    /// anything else is read by ``number()``.
    mutating func skipNumber() throws {
        let start = position
        if position < bytes.count, bytes[position] == UInt8(ascii: "-") { position += 1 }
        let first = position
        while position < bytes.count, bytes[position] &- UInt8(ascii: "0") < 10 { position += 1 }
        let digits = position - first
        let next = position < bytes.count ? bytes[position] : 0
        if digits > 0, digits <= 15, digits == 1 || bytes[first] != UInt8(ascii: "0"),
           next != UInt8(ascii: "."), next != UInt8(ascii: "e"), next != UInt8(ascii: "E") {
            return
        }
        position = start
        _ = try number()
    }

    // MARK: Values

    /// `true` or `false`.
    @usableFromInline
    package mutating func bool() throws -> Bool {
        if peek() == UInt8(ascii: "t") {
            try literal("true")
            return true
        }
        try literal("false")
        return false
    }

    /// An integer written as plain digits (`-?(0|[1-9][0-9]*)`) that fits `Int64`.
    @inlinable
    package mutating func integer() throws -> Int64 {
        skipSpace()
        let start = position
        let negative = position < bytes.count && bytes[position] == UInt8(ascii: "-")
        if negative { position += 1 }
        let first = position
        var magnitude: UInt64 = 0
        var overflow = false
        while position < bytes.count, bytes[position] &- UInt8(ascii: "0") < 10 {
            let (times, o1) = magnitude.multipliedReportingOverflow(by: 10)
            let (sum, o2) = times.addingReportingOverflow(UInt64(bytes[position] &- UInt8(ascii: "0")))
            overflow = overflow || o1 || o2
            magnitude = sum
            position += 1
        }
        let digits = position - first
        guard digits > 0, digits == 1 || bytes[first] != UInt8(ascii: "0") else {
            position = start
            throw failure("an integer was expected")
        }
        if position < bytes.count, [UInt8(ascii: "."), UInt8(ascii: "e"), UInt8(ascii: "E")].contains(bytes[position]) {
            position = start
            throw failure("an integer was expected, not a number with a fraction or an exponent")
        }
        let limit = UInt64(Int64.max) + (negative ? 1 : 0)
        guard !overflow, magnitude <= limit else {
            position = start
            throw failure("an integer out of the 64-bit range")
        }
        if negative { return magnitude == limit ? .min : -Int64(magnitude) }
        return Int64(magnitude)
    }

    /// A finite number in JSON's grammar.
    @usableFromInline
    package mutating func number() throws -> Double {
        skipSpace()
        let start = position
        func digits(_ scanner: inout JSONScanner) -> Int {
            let first = scanner.position
            while scanner.position < scanner.bytes.count, scanner.bytes[scanner.position] &- UInt8(ascii: "0") < 10 { scanner.position += 1 }
            return scanner.position - first
        }
        func invalid(_ scanner: inout JSONScanner) -> Failure {
            scanner.position = start
            return scanner.failure("a number was expected")
        }
        if position < bytes.count, bytes[position] == UInt8(ascii: "-") { position += 1 }
        let first = position
        let integerDigits = digits(&self)
        guard integerDigits > 0, integerDigits == 1 || bytes[first] != UInt8(ascii: "0") else { throw invalid(&self) }
        if position < bytes.count, bytes[position] == UInt8(ascii: ".") {
            position += 1
            guard digits(&self) > 0 else { throw invalid(&self) }
        }
        let mantissaEnd = position
        if position < bytes.count, bytes[position] == UInt8(ascii: "e") || bytes[position] == UInt8(ascii: "E") {
            position += 1
            if position < bytes.count, bytes[position] == UInt8(ascii: "+") || bytes[position] == UInt8(ascii: "-") { position += 1 }
            guard digits(&self) > 0 else { throw invalid(&self) }
        }
        let text = String(decoding: UnsafeRawBufferPointer(rebasing: bytes[start..<position]), as: UTF8.self)
        guard let value = Double(text), value.isFinite else { throw invalid(&self) }
        // A number too small for a `Double` (1e-400) is not read as 0: it is not that number
        // (and `JSONDecoder` refuses it too).
        if value == 0, bytes[first..<mantissaEnd].contains(where: { $0 &- UInt8(ascii: "1") < 9 }) {
            position = start
            throw failure("a number out of the range of a 64-bit real")
        }
        return value
    }

    /// A string, its escapes decoded.
    @inlinable
    package mutating func string() throws -> String {
        try expect(UInt8(ascii: "\""))
        let start = position
        while position < bytes.count {
            let byte = bytes[position]
            if byte == UInt8(ascii: "\"") {
                guard let text = Self.validUTF8(UnsafeRawBufferPointer(rebasing: bytes[start..<position])) else {
                    throw failure("a string that is not valid UTF-8")
                }
                position += 1
                return text
            }
            if byte == UInt8(ascii: "\\") || byte < 0x20 { break }
            position += 1
        }
        return try escapedString(from: start)
    }

    /// The rest of a string from `start` (after its quote), where an escape or an error begins.
    @usableFromInline
    mutating func escapedString(from start: Int) throws -> String {
        var decoded = Array(UnsafeRawBufferPointer(rebasing: bytes[start..<position]))
        while position < bytes.count {
            let byte = bytes[position]
            switch byte {
            case UInt8(ascii: "\""):
                position += 1
                guard let text = decoded.withUnsafeBytes(Self.validUTF8) else { throw failure("a string that is not valid UTF-8") }
                return text
            case UInt8(ascii: "\\"):
                position += 1
                guard position < bytes.count else { throw failure("an unfinished string") }
                let escape = bytes[position]
                position += 1
                switch escape {
                case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"): decoded.append(escape)
                case UInt8(ascii: "b"): decoded.append(0x08)
                case UInt8(ascii: "f"): decoded.append(0x0C)
                case UInt8(ascii: "n"): decoded.append(0x0A)
                case UInt8(ascii: "r"): decoded.append(0x0D)
                case UInt8(ascii: "t"): decoded.append(0x09)
                case UInt8(ascii: "u"): decoded.append(contentsOf: String(Character(try unicodeEscape())).utf8)
                default: throw failure("an invalid escape in a string")
                }
            default:
                guard byte >= 0x20 else { throw failure("a control character in a string") }
                decoded.append(byte)
                position += 1
            }
        }
        throw failure("an unfinished string")
    }

    /// `utf8` as a string, or `nil` when it is not valid UTF-8. (`String(validating:as:)`
    /// needs macOS 15; decoding repairs each invalid sequence with U+FFFD, so the bytes
    /// change exactly when they were invalid.)
    @usableFromInline
    static func validUTF8(_ utf8: UnsafeRawBufferPointer) -> String? {
        var text = String(decoding: utf8, as: UTF8.self)
        let same = text.withUTF8 { $0.count == utf8.count && (utf8.isEmpty || memcmp($0.baseAddress!, utf8.baseAddress!, utf8.count) == 0) }
        return same ? text : nil
    }

    /// The scalar of a `\u` escape (after `\u`), a surrogate pair included.
    mutating func unicodeEscape() throws -> Unicode.Scalar {
        var scalar = try hex4()
        if (0xD800..<0xDC00).contains(scalar) {
            guard bytes.count - position >= 2, bytes[position] == UInt8(ascii: "\\"), bytes[position + 1] == UInt8(ascii: "u") else {
                throw failure("an unpaired surrogate in a string")
            }
            position += 2
            let low = try hex4()
            guard (0xDC00..<0xE000).contains(low) else { throw failure("an unpaired surrogate in a string") }
            scalar = 0x10000 + ((scalar - 0xD800) << 10) + (low - 0xDC00)
        }
        guard let unicode = Unicode.Scalar(scalar) else { throw failure("an invalid \\u escape") }
        return unicode
    }

    mutating func hex4() throws -> UInt32 {
        guard bytes.count - position >= 4 else { throw failure("an invalid \\u escape") }
        var value: UInt32 = 0
        for _ in 0..<4 {
            let byte = bytes[position]
            let digit: UInt8
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = byte - UInt8(ascii: "0")
            case UInt8(ascii: "a")...UInt8(ascii: "f"): digit = byte - UInt8(ascii: "a") + 10
            case UInt8(ascii: "A")...UInt8(ascii: "F"): digit = byte - UInt8(ascii: "A") + 10
            default: throw failure("an invalid \\u escape")
            }
            value = value << 4 | UInt32(digit)
            position += 1
        }
        return value
    }
}
