import Foundation

/// The wire JSON of sync values, written by hand into bytes: what a client writes for a
/// push and what the server stores and serves, without `JSONEncoder` (encoding
/// was most of a large push's time on both sides). The bytes decode, with `JSONDecoder`, to
/// the same values as `JSONEncoder`'s output (see ``SyncValue``'s JSON form).
///
/// ```swift
/// var bytes: [UInt8] = []
/// try SyncJSON.append(.real(1.5), to: &bytes)          // {"real":1.5}
/// SyncJSON.appendString("say \"hi\"", to: &bytes)      // "say \"hi\""
/// ```
public enum SyncJSON {
    /// A JSON string literal: `"`, `\` and control characters escaped, everything else as
    /// UTF-8 (the bytes of a multi-byte character are all 0x80 or above, never escaped).
    ///
    /// ```swift
    /// SyncJSON.appendString("a\nb", to: &bytes)   // "a\nb", escaped
    /// ```
    public static func appendString(_ string: String, to bytes: inout [UInt8]) {
        appendString(utf8: string.utf8, to: &bytes)
    }

    /// ``appendString(_:to:)`` from the UTF-8 bytes of a string (valid UTF-8: they are
    /// copied as they are but for the escapes).
    ///
    /// ```swift
    /// SyncJSON.appendString(utf8: "tab\t".utf8, to: &bytes)   // "tab\t"
    /// ```
    public static func appendString<UTF8Bytes: Sequence<UInt8>>(utf8: UTF8Bytes, to bytes: inout [UInt8]) {
        bytes.append(UInt8(ascii: "\""))
        // Contiguous bytes (a native `String`, a buffer) are copied in runs between escapes
        // (byte by byte, this was a tenth of a first push's column writing).
        let copied: Void? = utf8.withContiguousStorageIfAvailable { buffer in
            var start = 0
            for index in buffer.indices where needsEscape(buffer[index]) {
                bytes.append(contentsOf: UnsafeBufferPointer(rebasing: buffer[start..<index]))
                appendEscape(buffer[index], to: &bytes)
                start = index + 1
            }
            bytes.append(contentsOf: UnsafeBufferPointer(rebasing: buffer[start...]))
        }
        if copied == nil {
            for byte in utf8 {
                if needsEscape(byte) { appendEscape(byte, to: &bytes) } else { bytes.append(byte) }
            }
        }
        bytes.append(UInt8(ascii: "\""))
    }

    /// Whether ``appendString(_:to:)`` escapes `byte` (a control character, `"` or `\`);
    /// a string with none of them is written as it is, between quotes.
    ///
    /// ```swift
    /// let plain = !name.utf8.contains(where: SyncJSON.needsEscape)
    /// ```
    @inline(__always)
    public static func needsEscape(_ byte: UInt8) -> Bool {
        byte < 0x20 || byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "\\")
    }

    private static func appendEscape(_ byte: UInt8, to bytes: inout [UInt8]) {
        bytes.append(UInt8(ascii: "\\"))
        switch byte {
        case 0x0A: bytes.append(UInt8(ascii: "n"))
        case 0x0D: bytes.append(UInt8(ascii: "r"))
        case 0x09: bytes.append(UInt8(ascii: "t"))
        case 0..<0x20:
            bytes.append(contentsOf: "u00".utf8)
            bytes.append(hexDigits[Int(byte >> 4)])
            bytes.append(hexDigits[Int(byte & 0x0F)])
        default: bytes.append(byte)   // " and \
        }
    }

    /// One value in its wire form: `null`, `42`, `"text"`, `{"real":1.5}`, `{"blob":"<base64>"}`.
    ///
    /// ```swift
    /// try SyncJSON.append(.integer(42), to: &bytes)   // 42
    /// ```
    /// - Throws: `EncodingError.invalidValue` for a real that is not finite (JSON has no
    ///   infinity nor NaN), naming the value.
    public static func append(_ value: SyncValue, to bytes: inout [UInt8]) throws {
        switch value {
        case .null: bytes.append(contentsOf: "null".utf8)
        case .integer(let integer): bytes.append(contentsOf: String(integer).utf8)
        case .text(let text): appendString(text, to: &bytes)
        case .real(let real):
            guard real.isFinite else {
                throw EncodingError.invalidValue(real, .init(
                    codingPath: [], debugDescription: "a real that is not finite (\(real)) cannot be synced"))
            }
            bytes.append(contentsOf: "{\"real\":".utf8)
            bytes.append(contentsOf: real.description.utf8)
            bytes.append(UInt8(ascii: "}"))
        case .blob(let data):
            data.withUnsafeBytes { appendBlob($0, to: &bytes) }
        }
    }

    /// A blob in its wire form, `{"blob":"<base64>"}` (standard alphabet, padded, as
    /// `Data.base64EncodedString()` writes it), from its bytes where they lie: an SQLite
    /// column, a `Data` (a `String` per blob was most of writing a blob id).
    ///
    /// ```swift
    /// Data([1, 2, 3]).withUnsafeBytes { SyncJSON.appendBlob($0, to: &bytes) }   // {"blob":"AQID"}
    /// ```
    public static func appendBlob(_ blob: UnsafeRawBufferPointer, to bytes: inout [UInt8]) {
        bytes.append(contentsOf: "{\"blob\":\"".utf8)
        let count = blob.count
        bytes.reserveCapacity(bytes.count + (count + 2) / 3 * 4 + 2)
        base64Digits.withUnsafeBufferPointer { digits in
            func digit(_ value: UInt32, _ shift: UInt32) -> UInt8 { digits[Int(value >> shift & 63)] }
            var index = 0
            while index + 3 <= count {
                let value = UInt32(blob[index]) << 16 | UInt32(blob[index + 1]) << 8 | UInt32(blob[index + 2])
                bytes.append(digit(value, 18))
                bytes.append(digit(value, 12))
                bytes.append(digit(value, 6))
                bytes.append(digit(value, 0))
                index += 3
            }
            switch count - index {
            case 1:
                let value = UInt32(blob[index]) << 16
                bytes.append(digit(value, 18))
                bytes.append(digit(value, 12))
                bytes.append(contentsOf: "==".utf8)
            case 2:
                let value = UInt32(blob[index]) << 16 | UInt32(blob[index + 1]) << 8
                bytes.append(digit(value, 18))
                bytes.append(digit(value, 12))
                bytes.append(digit(value, 6))
                bytes.append(UInt8(ascii: "="))
            default:
                break
            }
        }
        bytes.append(contentsOf: "\"}".utf8)
    }

    private static let base64Digits: [UInt8] = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/".utf8)

    private static let hexDigits: [UInt8] = Array("0123456789abcdef".utf8)
}
