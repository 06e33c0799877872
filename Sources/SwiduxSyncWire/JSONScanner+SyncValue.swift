import Foundation

extension JSONScanner {
    /// Reads one ``SyncValue`` in its wire form (`null`, an integer, a string, `{"real":n}`,
    /// `{"blob":"<base64>"}`) and appends it to `bytes` exactly as ``SyncJSON/append(_:to:)``
    /// writes that value: copied as it is when it already has that form (a plain integer, a
    /// string without escapes), written again otherwise (`-0`, an escaped string, a real, a
    /// blob). The same value therefore always gives the same bytes, without making a
    /// ``SyncValue`` of every plain one (the server stores a pushed row's columns
    /// this way instead of decoding and encoding them).
    ///
    /// ```swift
    /// var bytes: [UInt8] = []
    /// try scanner.syncValue(appendingTo: &bytes)   // "caf\u00e9" is appended as "café"
    /// ```
    ///
    /// - Throws: ``Failure`` when the next value is not a ``SyncValue``'s wire form (`true`,
    ///   `1.5` without `{"real":…}`, an object with another member, invalid base64…); `bytes`
    ///   may then hold part of it.
    @usableFromInline
    package mutating func syncValue(appendingTo bytes: inout [UInt8]) throws {
        switch peek() {
        case nil: throw failure("a value was expected")
        case UInt8(ascii: "n"):
            try literal("null")
            bytes.append(contentsOf: "null".utf8)
        case UInt8(ascii: "\""): try plainString(appendingTo: &bytes)
        case UInt8(ascii: "{"): try SyncJSON.append(try syncValue(), to: &bytes)
        default:
            let start = position
            let integer = try integer()
            if integer == 0 {
                bytes.append(UInt8(ascii: "0"))   // "-0" too
            } else {
                bytes.append(contentsOf: UnsafeRawBufferPointer(rebasing: self.bytes[start..<position]))
            }
        }
    }

    /// A string copied with its quotes when it has no escape (and is valid UTF-8); decoded
    /// and escaped again as ``SyncJSON/appendString(_:to:)`` does otherwise.
    private mutating func plainString(appendingTo bytes: inout [UInt8]) throws {
        let quote = position
        position += 1
        var ascii = true
        while position < self.bytes.count {
            let byte = self.bytes[position]
            if byte == UInt8(ascii: "\"") {
                let text = UnsafeRawBufferPointer(rebasing: self.bytes[quote + 1..<position])
                guard ascii || Self.validUTF8(text) != nil else {
                    position = quote
                    throw failure("a string that is not valid UTF-8")
                }
                position += 1
                bytes.append(contentsOf: UnsafeRawBufferPointer(rebasing: self.bytes[quote..<position]))
                return
            }
            if byte == UInt8(ascii: "\\") || byte < 0x20 { break }
            if byte >= 0x80 { ascii = false }
            position += 1
        }
        position = quote
        SyncJSON.appendString(try string(), to: &bytes)
    }

    /// Reads one ``SyncValue`` in its wire form, strictly: `null`, an integer (plain digits
    /// that fit `Int64`), a string, `{"real":n}` (a finite number) or `{"blob":"<base64>"}`,
    /// each object with that one member.
    ///
    /// ```swift
    /// let value = try scanner.syncValue()   // {"real":1.5} → .real(1.5)
    /// ```
    ///
    /// - Throws: ``Failure`` for anything else (`true`, `1.5`, `{"real":1,"blob":""}`…).
    @usableFromInline
    package mutating func syncValue() throws -> SyncValue {
        switch peek() {
        case nil: throw failure("a value was expected")
        case UInt8(ascii: "n"):
            try literal("null")
            return .null
        case UInt8(ascii: "\""): return .text(try string())
        case UInt8(ascii: "{"): break
        default: return .integer(try integer())
        }
        var value: SyncValue?
        try object { scanner, key in
            guard value == nil else { throw scanner.failure("a value object with more than one member") }
            switch key {
            case "real": value = .real(try scanner.number())
            case "blob":
                guard let data = Data(base64Encoded: try scanner.string()) else { throw scanner.failure("a blob that is not base64") }
                value = .blob(data)
            default: throw scanner.failure("a value object with the member \"\(key)\" (only \"real\" or \"blob\")")
            }
        }
        guard let value else { throw failure("an empty value object") }
        return value
    }
}
