import Foundation
import GRDB
import SwiduxSyncWire

/// Writes the wire JSON of pushed changes straight from SQLite values, without building
/// ``SyncChange`` values and without `JSONEncoder` (issue 31: they were most of the client's
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

    /// A JSON string: `"`, `\` and control characters escaped, everything else as UTF-8.
    mutating func string(_ text: String) {
        bytes.append(UInt8(ascii: "\""))
        for byte in text.utf8 {
            switch byte {
            case UInt8(ascii: "\""): bytes.append(UInt8(ascii: "\\")); bytes.append(byte)
            case UInt8(ascii: "\\"): bytes.append(UInt8(ascii: "\\")); bytes.append(byte)
            case 0x0A: raw("\\n")
            case 0x0D: raw("\\r")
            case 0x09: raw("\\t")
            case 0..<0x20:
                raw("\\u00")
                let hex: [UInt8] = Array("0123456789abcdef".utf8)
                bytes.append(hex[Int(byte >> 4)])
                bytes.append(hex[Int(byte & 0x0F)])
            default: bytes.append(byte)
            }
        }
        bytes.append(UInt8(ascii: "\""))
    }

    /// A SQLite value in ``SyncValue``'s JSON form.
    mutating func value(_ value: DatabaseValue) throws {
        switch value.storage {
        case .null: raw("null")
        case .int64(let number): integer(number)
        case .string(let text): string(text)
        case .double(let real):
            guard real.isFinite else {
                throw EncodingError.invalidValue(real, .init(codingPath: [], debugDescription: "a real that is not finite (\(real)) cannot be synced"))
            }
            raw("{\"real\":")
            bytes.append(contentsOf: real.description.utf8)
            bytes.append(UInt8(ascii: "}"))
        case .blob(let data):
            raw("{\"blob\":\"")
            bytes.append(contentsOf: data.base64EncodedString().utf8)
            raw("\"}")
        }
    }

    /// One change: its columns from `row` (every column but `idColumn`), `nil` for a deletion.
    mutating func change(table: String, id: DatabaseValue, kind: SyncChange.Kind, row: Row?, idColumn: String,
                         baseVersion: Int64?) throws {
        raw("{")
        if let baseVersion {
            raw("\"baseVersion\":")
            integer(baseVersion)
            raw(",")
        }
        if kind != .delete, let row {
            raw("\"columns\":{")
            var first = true
            let id = idColumn.lowercased()
            for (name, value) in row where name.lowercased() != id {
                if !first { bytes.append(UInt8(ascii: ",")) }
                first = false
                string(name)
                bytes.append(UInt8(ascii: ":"))
                try self.value(value)
            }
            raw("},")
        }
        raw("\"id\":")
        try value(id)
        raw(",\"kind\":")
        string(kind.rawValue)
        raw(",\"table\":")
        string(table)
        raw("}")
    }
}
