import NIOCore
import SwiduxSyncWire

/// A JSON document written straight into a `ByteBuffer`, for the large answers (a pull
/// page, a push's results): the ids and columns the server stores as JSON text are copied
/// in verbatim instead of being decoded into ``SwiduxSyncWire/SyncValue``s and encoded again.
///
/// The caller writes the structure (`{`, keys, commas) with ``raw(_:)-(StaticString)``;
/// ``string(_:)`` escapes a string as JSON requires, ``rawText(_:)`` copies JSON text that is
/// already valid.
///
/// ```swift
/// var json = JSONText(capacity: 64)
/// json.raw("{\"table\":"); json.string("todo"); json.raw(",\"id\":"); json.rawText(idJSON); json.raw("}")
/// ```
struct JSONText: Sendable {
    private(set) var buffer: ByteBuffer

    init(capacity: Int) {
        buffer = ByteBufferAllocator().buffer(capacity: capacity)
    }

    /// Copies `text`, JSON written in the code (a key, punctuation), as it is, without a
    /// `String` (a push's answer writes ten of them per row).
    mutating func raw(_ text: StaticString) {
        buffer.writeStaticString(text)
    }

    /// Copies `text`, already JSON, as it is.
    mutating func rawText(_ text: String) {
        buffer.writeString(text)
    }

    /// Copies `bytes`, already JSON, as they are (a text column read from PostgreSQL).
    mutating func raw(_ bytes: ByteBuffer) {
        buffer.writeImmutableBuffer(bytes)
    }

    /// A JSON string literal (``SwiduxSyncWire/SyncJSON/appendString(_:to:)``).
    mutating func string(_ text: String) {
        if !text.utf8.contains(where: SyncJSON.needsEscape) {
            // Nothing to escape (a table name, say): copied without a buffer of its own
            // (one per result's table name, twice, in a push's answer).
            buffer.writeInteger(UInt8(ascii: "\""))
            buffer.writeString(text)
            buffer.writeInteger(UInt8(ascii: "\""))
            return
        }
        var bytes: [UInt8] = []
        bytes.reserveCapacity(text.utf8.count + 2)
        SyncJSON.appendString(text, to: &bytes)
        buffer.writeBytes(bytes)
    }

    /// A JSON number, its digits written in place.
    mutating func integer(_ value: Int64) {
        Self.writeDigits(of: value, to: &buffer)
    }

    /// Writes `value` in decimal (as `String(value)` spells it) into `buffer`.
    static func writeDigits(of value: Int64, to buffer: inout ByteBuffer) {
        if value < 0 { buffer.writeInteger(UInt8(ascii: "-")) }
        var magnitude = value.magnitude
        // 20 digits at most (UInt64.max); written from the end.
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 20) { digits in
            var start = 20
            repeat {
                start -= 1
                digits[start] = UInt8(ascii: "0") + UInt8(magnitude % 10)
                magnitude /= 10
            } while magnitude > 0
            buffer.writeBytes(UnsafeRawBufferPointer(rebasing: UnsafeRawBufferPointer(digits)[start...]))
        }
    }
}
