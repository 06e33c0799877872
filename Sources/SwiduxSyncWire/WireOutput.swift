/// Where a ``WireWriter`` writes: bytes appended at the end. `[UInt8]` is one; the server
/// makes SwiftNIO's `ByteBuffer` another, so that an answer is written once, in place.
///
/// ```swift
/// extension ByteBuffer: @retroactive WireOutput {
///     public mutating func writeWireBytes(_ bytes: UnsafeRawBufferPointer) { writeBytes(bytes) }
///     public mutating func writeWireByte(_ byte: UInt8) { writeInteger(byte) }
/// }
/// ```
public protocol WireOutput {
    /// Appends `bytes`.
    mutating func writeWireBytes(_ bytes: UnsafeRawBufferPointer)
    /// Appends `byte`.
    mutating func writeWireByte(_ byte: UInt8)
    /// Makes room for `count` more bytes (a hint; nothing by default).
    mutating func reserveWireCapacity(_ count: Int)
}

extension WireOutput {
    /// Nothing: the output grows as it is written.
    @inlinable
    public mutating func reserveWireCapacity(_ count: Int) {}
}

extension Array: WireOutput where Element == UInt8 {
    /// Appends `bytes`.
    @inlinable
    public mutating func writeWireBytes(_ bytes: UnsafeRawBufferPointer) {
        append(contentsOf: bytes)
    }

    /// Appends `byte`.
    @inlinable
    public mutating func writeWireByte(_ byte: UInt8) {
        append(byte)
    }

    /// Reserves room for `count` more bytes.
    @inlinable
    public mutating func reserveWireCapacity(_ count: Int) {
        reserveCapacity(self.count + count)
    }
}
