import Foundation
import SwiduxSyncWire

/// The JSON the server stores for ids and columns: the wire form of ``SyncValue``, kept
/// verbatim in `json` columns and copied verbatim into pull pages and push answers.
/// Written by hand (not by `JSONEncoder`): a push of 10,000 rows encodes 20,000 of them.
enum WireJSON {
    /// The wire JSON of one value (`null`, `42`, `"text"`, `{"real":1.5}`, `{"blob":"<base64>"}`).
    static func text(_ value: SyncValue) throws -> String {
        var text = ""
        try append(value, to: &text)
        return text
    }

    /// The wire JSON of a row's columns: an object, one member per column, in the order of
    /// their names (the same text for the same columns, in every process).
    static func text(_ columns: [String: SyncValue]) throws -> String {
        var text = "{"
        text.reserveCapacity(16 + columns.count * 24)
        var first = true
        for (name, value) in columns.sorted(by: { $0.key < $1.key }) {
            if !first { text += "," }
            first = false
            appendString(name, to: &text)
            text += ":"
            try append(value, to: &text)
        }
        text += "}"
        return text
    }

    private static func append(_ value: SyncValue, to text: inout String) throws {
        switch value {
        case .null: text += "null"
        case .integer(let integer): text += String(integer)
        case .text(let string): appendString(string, to: &text)
        case .real(let real):
            guard real.isFinite else { throw WireJSONError(description: "\(real) is not a finite number") }
            text += "{\"real\":"
            text += "\(real)"
            text += "}"
        case .blob(let data):
            text += "{\"blob\":\""
            text += data.base64EncodedString()
            text += "\"}"
        }
    }

    /// A JSON string literal: `"`, `\` and control characters escaped.
    static func appendString(_ string: String, to text: inout String) {
        text += "\""
        if !string.utf8.contains(where: { $0 < 0x20 || $0 == UInt8(ascii: "\"") || $0 == UInt8(ascii: "\\") }) {
            text += string
        } else {
            for scalar in string.unicodeScalars {
                switch scalar {
                case "\"": text += "\\\""
                case "\\": text += "\\\\"
                case "\n": text += "\\n"
                case "\r": text += "\\r"
                case "\t": text += "\\t"
                case _ where scalar.value < 0x20:
                    let hex = String(scalar.value, radix: 16)
                    text += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
                default: text.unicodeScalars.append(scalar)
                }
            }
        }
        text += "\""
    }
}

/// A value the server cannot store as JSON.
struct WireJSONError: Error, CustomStringConvertible {
    let description: String
}
