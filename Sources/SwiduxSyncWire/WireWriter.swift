import Foundation

/// The one writer of the sync wire format, shared by the client (a push's changes, written
/// from SQLite's values) and the server (pull pages and push answers, the columns it
/// stores): JSON written by hand into `[UInt8]` or any other ``WireOutput`` (the server's
/// `ByteBuffer`), without `JSONEncoder` (encoding was most of a large push's time on both
/// sides). What it writes decodes, with `JSONDecoder` and with ``WireReader``, to the values
/// written; the same value always gives the same bytes.
///
/// The caller writes the structure (`{`, names, commas) with ``raw(_:)``;
/// ``string(_:)`` escapes a string as JSON requires, ``value(_:)`` writes a ``SyncValue`` in
/// its wire form, ``rawJSON(_:)`` copies JSON text that is already valid.
///
/// ```swift
/// var json = WireWriter()
/// json.raw("{\"table\":"); json.string("todo")
/// json.raw(",\"id\":"); try json.value(.integer(7)); json.raw("}")
/// json.output   // {"table":"todo","id":7}
/// ```
public struct WireWriter<Output: WireOutput> {
    /// What was written.
    public var output: Output

    /// A writer appending to `output`.
    ///
    /// ```swift
    /// var json = WireWriter(into: ByteBuffer())
    /// ```
    @inlinable
    public init(into output: Output) {
        self.output = output
    }

    /// Copies `text`, JSON written in the code (a member's name, punctuation), as it is.
    ///
    /// ```swift
    /// json.raw("{\"rows\":[")
    /// ```
    @inlinable
    public mutating func raw(_ text: StaticString) {
        text.withUTF8Buffer { output.writeWireBytes(UnsafeRawBufferPointer($0)) }
    }

    /// Copies `text`, already JSON (a stored id or row's columns), as it is.
    ///
    /// ```swift
    /// json.rawJSON(#"{"title":"Buy milk"}"#)
    /// ```
    @inlinable
    public mutating func rawJSON(_ text: String) {
        var text = text
        text.withUTF8 { output.writeWireBytes(UnsafeRawBufferPointer($0)) }
    }

    /// Copies `bytes`, already JSON, as they are.
    ///
    /// ```swift
    /// json.raw(bytes: encodedColumns)   // [UInt8]
    /// ```
    @inlinable
    public mutating func raw(bytes: [UInt8]) {
        bytes.withUnsafeBytes { output.writeWireBytes($0) }
    }

    /// An integer in decimal, as `String(value)` spells it.
    ///
    /// ```swift
    /// json.integer(-42)   // -42
    /// ```
    @inlinable
    public mutating func integer(_ value: Int64) {
        if value < 0 { output.writeWireByte(UInt8(ascii: "-")) }
        var magnitude = value.magnitude
        // 20 digits at most (UInt64.max), written from the end, without a `String`.
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 20) { digits in
            var start = 20
            repeat {
                start -= 1
                digits[start] = UInt8(ascii: "0") &+ UInt8(truncatingIfNeeded: magnitude % 10)
                magnitude /= 10
            } while magnitude > 0
            output.writeWireBytes(UnsafeRawBufferPointer(rebasing: UnsafeRawBufferPointer(digits)[start...]))
        }
    }

    /// `true` or `false`.
    ///
    /// ```swift
    /// json.bool(false)   // false
    /// ```
    @inlinable
    public mutating func bool(_ value: Bool) {
        raw(value ? "true" : "false")
    }

    /// A JSON string literal: `"`, `\` and control characters escaped, everything else as
    /// UTF-8 (the bytes of a multi-byte character are all 0x80 or above, never escaped).
    ///
    /// ```swift
    /// json.string("say \"hi\"\n")   // "say \"hi\"\n"
    /// ```
    @inlinable
    public mutating func string(_ text: String) {
        string(utf8: text.utf8)
    }

    /// ``string(_:)`` from the UTF-8 bytes of a string (valid UTF-8: they are copied as
    /// they are but for the escapes).
    ///
    /// ```swift
    /// json.string(utf8: name)   // name: [UInt8]
    /// ```
    @inlinable
    public mutating func string<UTF8Bytes: Sequence<UInt8>>(utf8: UTF8Bytes) {
        output.writeWireByte(UInt8(ascii: "\""))
        // Contiguous bytes (a native `String`, a buffer) are copied in runs between escapes
        // (byte by byte, this was a tenth of a first push's column writing).
        let copied: Void? = utf8.withContiguousStorageIfAvailable { buffer in
            var start = 0
            for index in buffer.indices where Self.needsEscape(buffer[index]) {
                output.writeWireBytes(UnsafeRawBufferPointer(rebasing: UnsafeRawBufferPointer(buffer)[start..<index]))
                escape(buffer[index])
                start = index + 1
            }
            output.writeWireBytes(UnsafeRawBufferPointer(rebasing: UnsafeRawBufferPointer(buffer)[start...]))
        }
        if copied == nil {
            for byte in utf8 {
                if Self.needsEscape(byte) { escape(byte) } else { output.writeWireByte(byte) }
            }
        }
        output.writeWireByte(UInt8(ascii: "\""))
    }

    /// Whether ``string(_:)`` escapes `byte` (a control character, `"` or `\`); a string
    /// with none of them is written as it is, between quotes.
    @inlinable @inline(__always)
    static func needsEscape(_ byte: UInt8) -> Bool {
        byte < 0x20 || byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "\\")
    }

    @usableFromInline
    mutating func escape(_ byte: UInt8) {
        output.writeWireByte(UInt8(ascii: "\\"))
        switch byte {
        case 0x0A: output.writeWireByte(UInt8(ascii: "n"))
        case 0x0D: output.writeWireByte(UInt8(ascii: "r"))
        case 0x09: output.writeWireByte(UInt8(ascii: "t"))
        case 0..<0x20:
            raw("u00")
            output.writeWireByte(WireDigits.hex[Int(byte >> 4)])
            output.writeWireByte(WireDigits.hex[Int(byte & 0x0F)])
        default: output.writeWireByte(byte)   // " and \
        }
    }

    /// One value in its wire form: `null`, `42`, `"text"`, `{"real":1.5}`, `{"blob":"<base64>"}`.
    ///
    /// ```swift
    /// try json.value(.real(1.5))   // {"real":1.5}
    /// ```
    /// - Throws: `EncodingError.invalidValue` for a real that is not finite (JSON has no
    ///   infinity nor NaN), naming the value.
    @inlinable
    public mutating func value(_ value: SyncValue) throws {
        switch value {
        case .null: raw("null")
        case .integer(let integer): self.integer(integer)
        case .text(let text): string(text)
        case .real(let real): try self.real(real)
        case .blob(let data): data.withUnsafeBytes { blob($0) }
        }
    }

    /// A real in its wire form, `{"real":n}`.
    ///
    /// ```swift
    /// try json.real(0.5)   // {"real":0.5}
    /// ```
    /// - Throws: `EncodingError.invalidValue` for a real that is not finite.
    public mutating func real(_ real: Double) throws {
        guard real.isFinite else {
            throw EncodingError.invalidValue(real, .init(
                codingPath: [], debugDescription: "a real that is not finite (\(real)) cannot be synced"))
        }
        raw("{\"real\":")
        rawJSON(real.description)
        output.writeWireByte(UInt8(ascii: "}"))
    }

    /// A blob in its wire form, `{"blob":"<base64>"}` (standard alphabet, padded, as
    /// `Data.base64EncodedString()` writes it), from its bytes where they lie: an SQLite
    /// column, a `Data` (a `String` per blob was most of writing a blob id).
    ///
    /// ```swift
    /// Data([1, 2, 3]).withUnsafeBytes { json.blob($0) }   // {"blob":"AQID"}
    /// ```
    @inlinable
    public mutating func blob(_ blob: UnsafeRawBufferPointer) {
        raw("{\"blob\":")
        base64(blob)
        output.writeWireByte(UInt8(ascii: "}"))
    }

    /// A blob's base64 as a JSON string (`"AQID"`): the text of ``SyncValue/key`` for a
    /// blob, and the inside of its wire form.
    ///
    /// ```swift
    /// Data([1, 2, 3]).withUnsafeBytes { json.base64($0) }   // "AQID"
    /// ```
    @inlinable
    public mutating func base64(_ blob: UnsafeRawBufferPointer) {
        output.writeWireByte(UInt8(ascii: "\""))
        let count = blob.count
        output.reserveWireCapacity((count + 2) / 3 * 4 + 3)
        // Through the table's buffer: no bounds check nor retain per digit.
        WireDigits.base64.withUnsafeBufferPointer { digits in
            var index = 0
            while index + 3 <= count {
                let value = UInt32(blob[index]) << 16 | UInt32(blob[index + 1]) << 8 | UInt32(blob[index + 2])
                output.writeWireByte(digits[Int(value >> 18 & 63)])
                output.writeWireByte(digits[Int(value >> 12 & 63)])
                output.writeWireByte(digits[Int(value >> 6 & 63)])
                output.writeWireByte(digits[Int(value & 63)])
                index += 3
            }
            switch count - index {
            case 1:
                let value = UInt32(blob[index]) << 16
                output.writeWireByte(digits[Int(value >> 18 & 63)])
                output.writeWireByte(digits[Int(value >> 12 & 63)])
                raw("==")
            case 2:
                let value = UInt32(blob[index]) << 16 | UInt32(blob[index + 1]) << 8
                output.writeWireByte(digits[Int(value >> 18 & 63)])
                output.writeWireByte(digits[Int(value >> 12 & 63)])
                output.writeWireByte(digits[Int(value >> 6 & 63)])
                output.writeWireByte(UInt8(ascii: "="))
            default:
                break
            }
        }
        output.writeWireByte(UInt8(ascii: "\""))
    }
}

extension WireWriter where Output == [UInt8] {
    /// A writer into a new `[UInt8]`.
    ///
    /// ```swift
    /// var json = WireWriter()
    /// ```
    @inlinable
    public init() {
        output = []
    }
}

/// The digit tables of ``WireWriter``.
@usableFromInline
enum WireDigits {
    @usableFromInline static let base64: [UInt8] = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/".utf8)
    @usableFromInline static let hex: [UInt8] = Array("0123456789abcdef".utf8)
}
