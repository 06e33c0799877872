import NIOCore
import SwiduxSyncWire

/// The server's answers are written by ``SwiduxSyncWire/WireWriter`` straight into the
/// `ByteBuffer` they are sent from: the ids and columns the server stores as JSON text are
/// copied in verbatim instead of being decoded into ``SwiduxSyncWire/SyncValue``s and
/// encoded again.
extension ByteBuffer: @retroactive WireOutput {
    @inlinable
    public mutating func writeWireBytes(_ bytes: UnsafeRawBufferPointer) {
        writeBytes(bytes)
    }

    @inlinable
    public mutating func writeWireByte(_ byte: UInt8) {
        writeInteger(byte)
    }

    @inlinable
    public mutating func reserveWireCapacity(_ count: Int) {
        reserveCapacity(minimumWritableBytes: count)
    }
}

extension WireWriter where Output == ByteBuffer {
    /// A writer into a new buffer of `capacity` bytes (it grows as needed).
    ///
    /// ```swift
    /// var json = WireWriter<ByteBuffer>(capacity: 64)
    /// json.raw("{\"table\":"); json.string("todo"); json.raw("}")
    /// ```
    init(capacity: Int) {
        self.init(into: ByteBufferAllocator().buffer(capacity: capacity))
    }

    /// Copies `bytes`, already JSON, as they are (a text column read from PostgreSQL).
    mutating func raw(_ bytes: ByteBuffer) {
        output.writeImmutableBuffer(bytes)
    }
}
