import Foundation
import SwiduxSyncWire

/// The JSON the server stores for ids and columns: the wire form of ``SyncValue``, kept
/// verbatim in `json` columns and copied verbatim into pull pages and push answers.
/// Written by hand (not by `JSONEncoder`): a push of 10,000 rows encodes 20,000 of them.
enum WireJSON {
    /// The wire JSON of one value (`null`, `42`, `"text"`, `{"real":1.5}`, `{"blob":"<base64>"}`).
    static func text(_ value: SyncValue) throws -> String {
        var bytes: [UInt8] = []
        try SyncJSON.append(value, to: &bytes)
        return String(decoding: bytes, as: UTF8.self)
    }

    /// `value`'s ``SwiduxSyncWire/SyncValue/key``, given its wire JSON (`json`, from
    /// ``text(_:)-(SyncValue)``): a blob's base64 is taken from it rather than encoded again
    /// (a first push's blob ids were encoded twice).
    static func key(_ value: SyncValue, json: String) -> String {
        guard case .blob = value else { return value.key }
        // `{"blob":"` … `"}`
        return "b:" + String(decoding: json.utf8.dropFirst(9).dropLast(2), as: UTF8.self)
    }

    /// The wire JSON of a row's columns: an object, one member per column, in the order of
    /// their names' UTF-8 bytes (the same text for the same columns, in every process).
    static func text(_ columns: [String: SyncValue]) throws -> String {
        var bytes: [UInt8] = [UInt8(ascii: "{")]
        bytes.reserveCapacity(16 + columns.count * 24)
        for (index, (name, value)) in columns.sorted(by: { Bytewise.less($0.key, $1.key) }).enumerated() {
            if index > 0 { bytes.append(UInt8(ascii: ",")) }
            SyncJSON.appendString(name, to: &bytes)
            bytes.append(UInt8(ascii: ":"))
            try SyncJSON.append(value, to: &bytes)
        }
        bytes.append(UInt8(ascii: "}"))
        return String(decoding: bytes, as: UTF8.self)
    }
}
