import Foundation
import GRDB
import SwiduxSyncWire

/// Writes the wire JSON of pushed changes straight from SQLite values, without building
/// ``SyncChange`` values and without `JSONEncoder` (they were most of the client's
/// time in a first push of 100,000 rows). The bytes decode to the same ``SyncMutation``
/// as `JSONEncoder`'s: `{"changes":[…],"id":N}`, each change
/// `{"baseVersion":N,"columns":{…},"id":…,"kind":"…","table":"…"}` (absent keys for `nil`),
/// values in ``SyncValue``'s JSON form.
struct WireWriter {
    private(set) var bytes: [UInt8] = []

    var count: Int { bytes.count }

    mutating func removeAll() { bytes.removeAll(keepingCapacity: true) }

    mutating func append(_ other: WireWriter) { bytes.append(contentsOf: other.bytes) }

    mutating func raw(_ text: StaticString) {
        text.withUTF8Buffer { bytes.append(contentsOf: $0) }
    }

    mutating func integer(_ value: Int64) {
        bytes.append(contentsOf: String(value).utf8)
    }

    /// A JSON string (``SyncJSON/appendString(_:to:)``).
    mutating func string(_ text: String) {
        SyncJSON.appendString(text, to: &bytes)
    }

    /// A JSON string from its UTF-8 bytes (valid UTF-8).
    mutating func string(utf8: UnsafeBufferPointer<UInt8>) {
        SyncJSON.appendString(utf8: utf8, to: &bytes)
    }

    /// A SQLite value in ``SyncValue``'s JSON form (``SyncJSON/append(_:to:)``).
    mutating func value(_ value: DatabaseValue) throws {
        try SyncJSON.append(SyncValue(value), to: &bytes)
    }

    /// A blob from its bytes (``SyncJSON/appendBlob(_:to:)``).
    mutating func blob(_ bytes: UnsafeRawBufferPointer) {
        SyncJSON.appendBlob(bytes, to: &self.bytes)
    }

    /// Bytes already encoded.
    mutating func append(encoded: [UInt8]) { bytes.append(contentsOf: encoded) }

    /// The start of one change, up to its columns: `{` and its base version.
    mutating func beginChange(baseVersion: Int64?) {
        raw("{")
        if let baseVersion {
            raw("\"baseVersion\":")
            integer(baseVersion)
            raw(",")
        }
    }

    /// The rest of one change, after its columns (``CurrentRows``; none for a deletion).
    mutating func endChange(table: String, id: DatabaseValue, kind: SyncChange.Kind) throws {
        raw("\"id\":")
        try value(id)
        raw(",\"kind\":")
        string(kind.rawValue)
        raw(",\"table\":")
        string(table)
        raw("}")
    }
}
