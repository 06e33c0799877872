import Foundation
import GRDB
import SwiduxSyncWire

/// The client's use of ``SwiduxSyncWire/WireWriter``: a push's changes written straight from
/// SQLite values, without building ``SyncChange`` values and without `JSONEncoder` (they
/// were most of the client's time in a first push of 100,000 rows). The bytes decode to the
/// same ``SyncMutation`` as `JSONEncoder`'s: `{"changes":[…],"id":N}`, each change
/// `{"baseVersion":N,"columns":{…},"id":…,"kind":"…","table":"…"}` (absent keys for `nil`).
extension WireWriter where Output == [UInt8] {
    var count: Int { output.count }

    mutating func removeAll() { output.removeAll(keepingCapacity: true) }

    mutating func append(_ other: WireWriter<[UInt8]>) { output.append(contentsOf: other.output) }

    /// A SQLite value in ``SyncValue``'s wire form.
    mutating func value(_ value: DatabaseValue) throws {
        try self.value(SyncValue(value))
    }

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
