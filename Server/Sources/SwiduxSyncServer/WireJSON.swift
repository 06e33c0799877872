import Foundation
import SwiduxSyncWire

/// The JSON the server stores for ids and columns: the wire form of ``SyncValue``
/// (``SwiduxSyncWire/WireWriter``), kept verbatim in `json` columns and copied verbatim into
/// pull pages and push answers.
enum WireJSON {
    /// An id's wire JSON and its ``SwiduxSyncWire/SyncValue/key``.
    struct ID {
        var json: String
        var key: String
    }

    /// The wire JSON of one value (`null`, `42`, `"text"`, `{"real":1.5}`, `{"blob":"<base64>"}`).
    static func text(_ value: SyncValue) throws -> String {
        var json = WireWriter()
        try json.value(value)
        return String(decoding: json.output, as: UTF8.self)
    }

    /// `id`'s wire JSON and key, a blob's base64 written once for both (a first push's
    /// blob ids were encoded twice).
    static func id(_ id: SyncValue) throws -> ID {
        guard case .blob(let data) = id else { return ID(json: try text(id), key: id.key) }
        var json = WireWriter()
        json.raw("{\"blob\":")
        let start = json.output.count
        data.withUnsafeBytes { json.base64($0) }
        // The base64 between the quotes the writer put around it.
        let base64 = json.output[(start + 1)..<(json.output.count - 1)]
        json.raw("}")
        return ID(json: String(decoding: json.output, as: UTF8.self), key: "b:" + String(decoding: base64, as: UTF8.self))
    }

    /// The wire JSON of a row's columns: an object, one member per column, in the order of
    /// their names' UTF-8 bytes (the same text for the same columns, in every process).
    static func text(_ columns: [String: SyncValue]) throws -> String {
        var json = WireWriter()
        json.output.reserveCapacity(16 + columns.count * 24)
        json.raw("{")
        for (index, (name, value)) in columns.sorted(by: { Bytewise.less($0.key, $1.key) }).enumerated() {
            if index > 0 { json.raw(",") }
            json.string(name)
            json.raw(":")
            try json.value(value)
        }
        json.raw("}")
        return String(decoding: json.output, as: UTF8.self)
    }
}
