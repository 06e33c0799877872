import NIOCore
import SwiduxSyncWire

/// A JSON document written straight into a `ByteBuffer`, for the large answers (a pull
/// page, a push's results): the ids and columns the server stores as JSON text are copied
/// in verbatim instead of being decoded into ``SwiduxSyncWire/SyncValue``s and encoded again.
///
/// The caller writes the structure (`{`, keys, commas); ``string(_:)`` escapes a string
/// as JSON requires, ``raw(_:)`` copies JSON text that is already valid.
///
/// ```swift
/// var json = JSONText(capacity: 64)
/// json.raw("{\"table\":"); json.string("todo"); json.raw(",\"id\":"); json.raw(idJSON); json.raw("}")
/// ```
struct JSONText: Sendable {
    private(set) var buffer: ByteBuffer

    init(capacity: Int) {
        buffer = ByteBufferAllocator().buffer(capacity: capacity)
    }

    /// Copies `text`, already JSON, as it is.
    mutating func raw(_ text: String) {
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
            // (issue 31: one per result's table name, twice, in a push's answer).
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

    /// A JSON number.
    mutating func integer(_ value: Int64) {
        buffer.writeString(String(value))
    }
}
