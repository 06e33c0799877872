import Foundation

/// One SQLite value as it travels between a client and the sync server.
///
/// JSON form: `null`; an integer is a JSON number (`42`); text is a JSON string
/// (`"Buy milk"`); a real is `{"real": 1.5}` and a blob `{"blob": "<base64>"}`, so that no
/// value changes type on the way.
///
/// ```swift
/// let value = SyncValue.text("Buy milk")
/// let data = try JSONEncoder().encode(value)   // "Buy milk"
/// ```
public enum SyncValue: Hashable, Sendable, Codable {
    /// SQL `NULL`.
    case null
    /// A 64-bit integer.
    case integer(Int64)
    /// A double.
    case real(Double)
    /// UTF-8 text.
    case text(String)
    /// Raw bytes.
    case blob(Data)

    private enum TaggedKey: String, CodingKey { case real, blob }

    /// Decodes the JSON form described on the type; any other JSON is an error that names it.
    ///
    /// ```swift
    /// let value = try JSONDecoder().decode(SyncValue.self, from: Data("42".utf8))   // .integer(42)
    /// ```
    public init(from decoder: any Decoder) throws {
        if let container = try? decoder.singleValueContainer() {
            if container.decodeNil() { self = .null; return }
            if let integer = try? container.decode(Int64.self) { self = .integer(integer); return }
            if let text = try? container.decode(String.self) { self = .text(text); return }
        }
        let tagged = try decoder.container(keyedBy: TaggedKey.self)
        if let real = try tagged.decodeIfPresent(Double.self, forKey: .real) { self = .real(real); return }
        if let blob = try tagged.decodeIfPresent(Data.self, forKey: .blob) { self = .blob(blob); return }
        throw DecodingError.dataCorrupted(.init(
            codingPath: decoder.codingPath,
            debugDescription: "a sync value is null, an integer, a string, {\"real\": number} or {\"blob\": base64}"))
    }

    /// Encodes the JSON form described on the type.
    ///
    /// ```swift
    /// try JSONEncoder().encode(SyncValue.real(1.5))   // {"real":1.5}
    /// ```
    public func encode(to encoder: any Encoder) throws {
        switch self {
        case .null:
            var container = encoder.singleValueContainer()
            try container.encodeNil()
        case .integer(let value):
            var container = encoder.singleValueContainer()
            try container.encode(value)
        case .text(let value):
            var container = encoder.singleValueContainer()
            try container.encode(value)
        case .real(let value):
            var container = encoder.container(keyedBy: TaggedKey.self)
            try container.encode(value, forKey: .real)
        case .blob(let value):
            var container = encoder.container(keyedBy: TaggedKey.self)
            try container.encode(value, forKey: .blob)
        }
    }

    /// A canonical text form, equal for equal values and different for different ones:
    /// the server's key for a row id (`i:42`, `t:Buy milk`, `r:<bit pattern>`,
    /// `b:<base64>`, `n:`).
    ///
    /// ```swift
    /// SyncValue.integer(42).key   // "i:42"
    /// ```
    public var key: String {
        switch self {
        case .null: "n:"
        case .integer(let value): "i:\(value)"
        case .real(let value): "r:\(value.bitPattern)"
        case .text(let value): "t:\(value)"
        case .blob(let value): "b:\(value.base64EncodedString())"
        }
    }
}
