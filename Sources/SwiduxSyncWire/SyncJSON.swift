import Foundation

/// ``WireWriter``'s writing of single values into `[UInt8]`, for the package's own code:
/// a sync value read by ``JSONScanner`` is written again exactly as the writer writes it.
///
/// ```swift
/// var bytes: [UInt8] = []
/// try SyncJSON.append(.real(1.5), to: &bytes)          // {"real":1.5}
/// SyncJSON.appendString("say \"hi\"", to: &bytes)      // "say \"hi\""
/// ```
package enum SyncJSON {
    /// A JSON string literal (``WireWriter/string(_:)``).
    @inlinable
    package static func appendString(_ string: String, to bytes: inout [UInt8]) {
        appendString(utf8: string.utf8, to: &bytes)
    }

    /// A JSON string literal from valid UTF-8 (``WireWriter/string(utf8:)``).
    @inlinable
    package static func appendString<UTF8Bytes: Sequence<UInt8>>(utf8: UTF8Bytes, to bytes: inout [UInt8]) {
        write(to: &bytes) { $0.string(utf8: utf8) }
    }

    /// One value in its wire form (``WireWriter/value(_:)``).
    @inlinable
    package static func append(_ value: SyncValue, to bytes: inout [UInt8]) throws {
        try write(to: &bytes) { try $0.value(value) }
    }

    /// A blob in its wire form (``WireWriter/blob(_:)``).
    @inlinable
    package static func appendBlob(_ blob: UnsafeRawBufferPointer, to bytes: inout [UInt8]) {
        write(to: &bytes) { $0.blob(blob) }
    }

    /// Runs `body` on a writer that appends to `bytes`, without copying them.
    @inlinable
    static func write<Result>(to bytes: inout [UInt8], _ body: (inout WireWriter<[UInt8]>) throws -> Result) rethrows -> Result {
        var writer = WireWriter(into: bytes)
        bytes = []
        defer { bytes = writer.output }
        return try body(&writer)
    }
}
