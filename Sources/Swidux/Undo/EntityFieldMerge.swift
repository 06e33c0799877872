import Foundation

// Field-by-field undo of an entity changed since its step: the entity's
// top-level coded fields are captured as the values themselves (not an encoding: lossless,
// nothing serialized), the fields the step changed are taken from the value before the step,
// the others from the current value, and the entity is decoded back from that mix. Public
// Swift only (`Codable`); any entity whose coding is not a flat keyed container (a custom
// `encode(to:)` with nested containers, a single value) is restored whole instead.

/// Merges, field by field, an undo (or redo) step's change into an entity changed since.
enum EntityFieldMerge {
    /// `current` with the top-level fields that differ between `previous` (before the step)
    /// and `after` (as the step left it) set back to `previous`'s; `previous` whole when the
    /// entity is not `Codable` or its coding cannot be taken apart.
    static func merge<Entity>(previous: Entity, after: Entity, current: Entity) -> Entity {
        guard let codable = Entity.self as? any Codable.Type else { return previous }
        func typed<C: Codable>(_: C.Type) -> Entity? {
            mergeCodable(previous as! C, after as! C, current as! C) as? Entity
        }
        return typed(codable) ?? previous
    }

    private static func mergeCodable<C: Codable>(_ previous: C, _ after: C, _ current: C) -> C? {
        guard let before = CapturedFields(previous), let stepped = CapturedFields(after),
              var merged = CapturedFields(current) else { return nil }
        for key in Set(before.values.keys).union(stepped.values.keys) {
            let old = before.values[key], new = stepped.values[key]
            guard !CapturedFields.same(old, new) else { continue }
            merged.values[key] = old   // `nil`: the step added the key, which goes again
        }
        return try? C(from: FieldMixDecoder(fields: merged.values))
    }
}

/// One top-level coded field: a value as the entity encoded it, or an explicit nil.
enum CapturedField {
    case null
    case value(Any)
}

/// The top-level fields of a value's `encode(to:)`, by key, or `nil` when its coding is not
/// one flat keyed container.
struct CapturedFields {
    var values: [String: CapturedField]

    init?<E: Encodable>(_ value: E) {
        let sink = FieldCaptureEncoder()
        do { try value.encode(to: sink) } catch { return nil }
        guard !sink.storage.failed else { return nil }
        values = sink.storage.values
    }

    /// Whether two captured fields hold the same value: `==` when the value is `Equatable`,
    /// else the same JSON (a value that cannot be compared counts as changed).
    static func same(_ lhs: CapturedField?, _ rhs: CapturedField?) -> Bool {
        switch (lhs, rhs) {
        case (nil, nil), (.null?, .null?): return true
        case (.value(let left)?, .value(let right)?):
            if let equatable = left as? any Equatable {
                func equal<T: Equatable>(_ left: T) -> Bool { (right as? T) == left }
                return equal(equatable)
            }
            guard let left = left as? any Encodable, let right = right as? any Encodable else { return false }
            let encoder = JSONEncoder()
            encoder.outputFormatting = .sortedKeys
            guard let leftData = try? encoder.encode([left].map(AnyEncodableBox.init)),
                  let rightData = try? encoder.encode([right].map(AnyEncodableBox.init)) else { return false }
            return leftData == rightData
        default: return false
        }
    }
}

private struct AnyEncodableBox: Encodable {
    let value: any Encodable
    func encode(to encoder: any Encoder) throws { try value.encode(to: encoder) }
}

final class FieldCaptureStorage {
    var values: [String: CapturedField] = [:]
    var failed = false
}

/// An `Encoder` that keeps the top-level keyed fields as they are.
struct FieldCaptureEncoder: Encoder {
    let storage = FieldCaptureStorage()
    var codingPath: [any CodingKey] { [] }
    var userInfo: [CodingUserInfoKey: Any] { [:] }

    func container<Key: CodingKey>(keyedBy type: Key.Type) -> KeyedEncodingContainer<Key> {
        KeyedEncodingContainer(FieldCaptureContainer<Key>(storage: storage))
    }
    func unkeyedContainer() -> any UnkeyedEncodingContainer {
        storage.failed = true
        return FailedEncodingContainer(storage: storage)
    }
    func singleValueContainer() -> any SingleValueEncodingContainer {
        storage.failed = true
        return FailedEncodingContainer(storage: storage)
    }
}

struct FieldCaptureContainer<Key: CodingKey>: KeyedEncodingContainerProtocol {
    let storage: FieldCaptureStorage
    var codingPath: [any CodingKey] { [] }

    mutating func encodeNil(forKey key: Key) throws { storage.values[key.stringValue] = .null }
    mutating func encode<T: Encodable>(_ value: T, forKey key: Key) throws { storage.values[key.stringValue] = .value(value) }
    mutating func encode(_ value: Bool, forKey key: Key) throws { storage.values[key.stringValue] = .value(value) }
    mutating func encode(_ value: String, forKey key: Key) throws { storage.values[key.stringValue] = .value(value) }
    mutating func encode(_ value: Double, forKey key: Key) throws { storage.values[key.stringValue] = .value(value) }
    mutating func encode(_ value: Float, forKey key: Key) throws { storage.values[key.stringValue] = .value(value) }
    mutating func encode(_ value: Int, forKey key: Key) throws { storage.values[key.stringValue] = .value(value) }
    mutating func encode(_ value: Int8, forKey key: Key) throws { storage.values[key.stringValue] = .value(value) }
    mutating func encode(_ value: Int16, forKey key: Key) throws { storage.values[key.stringValue] = .value(value) }
    mutating func encode(_ value: Int32, forKey key: Key) throws { storage.values[key.stringValue] = .value(value) }
    mutating func encode(_ value: Int64, forKey key: Key) throws { storage.values[key.stringValue] = .value(value) }
    mutating func encode(_ value: UInt, forKey key: Key) throws { storage.values[key.stringValue] = .value(value) }
    mutating func encode(_ value: UInt8, forKey key: Key) throws { storage.values[key.stringValue] = .value(value) }
    mutating func encode(_ value: UInt16, forKey key: Key) throws { storage.values[key.stringValue] = .value(value) }
    mutating func encode(_ value: UInt32, forKey key: Key) throws { storage.values[key.stringValue] = .value(value) }
    mutating func encode(_ value: UInt64, forKey key: Key) throws { storage.values[key.stringValue] = .value(value) }
    mutating func nestedContainer<NestedKey: CodingKey>(keyedBy keyType: NestedKey.Type, forKey key: Key) -> KeyedEncodingContainer<NestedKey> {
        storage.failed = true
        return KeyedEncodingContainer(FieldCaptureContainer<NestedKey>(storage: FieldCaptureStorage()))
    }
    mutating func nestedUnkeyedContainer(forKey key: Key) -> any UnkeyedEncodingContainer {
        storage.failed = true
        return FailedEncodingContainer(storage: storage)
    }
    mutating func superEncoder() -> any Encoder {
        storage.failed = true
        return FieldCaptureEncoder()
    }
    mutating func superEncoder(forKey key: Key) -> any Encoder {
        storage.failed = true
        return FieldCaptureEncoder()
    }
}

/// What an unsupported coding writes into: nothing (the capture has failed).
struct FailedEncodingContainer: UnkeyedEncodingContainer, SingleValueEncodingContainer {
    let storage: FieldCaptureStorage
    var codingPath: [any CodingKey] { [] }
    var count: Int { 0 }

    mutating func encodeNil() throws {}
    mutating func encode<T: Encodable>(_ value: T) throws {}
    mutating func encode(_ value: Bool) throws {}
    mutating func encode(_ value: String) throws {}
    mutating func encode(_ value: Double) throws {}
    mutating func encode(_ value: Float) throws {}
    mutating func encode(_ value: Int) throws {}
    mutating func encode(_ value: Int8) throws {}
    mutating func encode(_ value: Int16) throws {}
    mutating func encode(_ value: Int32) throws {}
    mutating func encode(_ value: Int64) throws {}
    mutating func encode(_ value: UInt) throws {}
    mutating func encode(_ value: UInt8) throws {}
    mutating func encode(_ value: UInt16) throws {}
    mutating func encode(_ value: UInt32) throws {}
    mutating func encode(_ value: UInt64) throws {}
    mutating func nestedContainer<NestedKey: CodingKey>(keyedBy keyType: NestedKey.Type) -> KeyedEncodingContainer<NestedKey> {
        KeyedEncodingContainer(FieldCaptureContainer<NestedKey>(storage: FieldCaptureStorage()))
    }
    mutating func nestedUnkeyedContainer() -> any UnkeyedEncodingContainer { self }
    mutating func superEncoder() -> any Encoder { FieldCaptureEncoder() }
}

/// A `Decoder` over captured top-level fields (see ``CapturedFields``): a field decodes as
/// the value captured, of the very type asked for.
struct FieldMixDecoder: Decoder {
    let fields: [String: CapturedField]
    var codingPath: [any CodingKey] { [] }
    var userInfo: [CodingUserInfoKey: Any] { [:] }

    func container<Key: CodingKey>(keyedBy type: Key.Type) throws -> KeyedDecodingContainer<Key> {
        KeyedDecodingContainer(FieldMixContainer<Key>(fields: fields))
    }
    func unkeyedContainer() throws -> any UnkeyedDecodingContainer { throw Self.unsupported }
    func singleValueContainer() throws -> any SingleValueDecodingContainer { throw Self.unsupported }

    static var unsupported: DecodingError {
        .dataCorrupted(.init(codingPath: [], debugDescription: "undo field merge: only a flat keyed coding is merged"))
    }
}

struct FieldMixContainer<Key: CodingKey>: KeyedDecodingContainerProtocol {
    let fields: [String: CapturedField]
    var codingPath: [any CodingKey] { [] }
    var allKeys: [Key] { fields.keys.compactMap { Key(stringValue: $0) } }

    func contains(_ key: Key) -> Bool { fields[key.stringValue] != nil }

    func decodeNil(forKey key: Key) throws -> Bool {
        guard let field = fields[key.stringValue] else {
            throw DecodingError.keyNotFound(key, .init(codingPath: [], debugDescription: "absent"))
        }
        if case .null = field { return true }
        return false
    }

    func decode<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T {
        guard case .value(let value)? = fields[key.stringValue] else {
            throw DecodingError.keyNotFound(key, .init(codingPath: [], debugDescription: "absent or nil"))
        }
        guard let typed = value as? T else {
            throw DecodingError.typeMismatch(T.self, .init(codingPath: [key], debugDescription: "captured as \(Swift.type(of: value))"))
        }
        return typed
    }
    func decode(_ type: Bool.Type, forKey key: Key) throws -> Bool { try decode(Bool.self as Bool.Type, generic: key) }
    func decode(_ type: String.Type, forKey key: Key) throws -> String { try decode(String.self as String.Type, generic: key) }
    func decode(_ type: Double.Type, forKey key: Key) throws -> Double { try decode(Double.self as Double.Type, generic: key) }
    func decode(_ type: Float.Type, forKey key: Key) throws -> Float { try decode(Float.self as Float.Type, generic: key) }
    func decode(_ type: Int.Type, forKey key: Key) throws -> Int { try decode(Int.self as Int.Type, generic: key) }
    func decode(_ type: Int8.Type, forKey key: Key) throws -> Int8 { try decode(Int8.self as Int8.Type, generic: key) }
    func decode(_ type: Int16.Type, forKey key: Key) throws -> Int16 { try decode(Int16.self as Int16.Type, generic: key) }
    func decode(_ type: Int32.Type, forKey key: Key) throws -> Int32 { try decode(Int32.self as Int32.Type, generic: key) }
    func decode(_ type: Int64.Type, forKey key: Key) throws -> Int64 { try decode(Int64.self as Int64.Type, generic: key) }
    func decode(_ type: UInt.Type, forKey key: Key) throws -> UInt { try decode(UInt.self as UInt.Type, generic: key) }
    func decode(_ type: UInt8.Type, forKey key: Key) throws -> UInt8 { try decode(UInt8.self as UInt8.Type, generic: key) }
    func decode(_ type: UInt16.Type, forKey key: Key) throws -> UInt16 { try decode(UInt16.self as UInt16.Type, generic: key) }
    func decode(_ type: UInt32.Type, forKey key: Key) throws -> UInt32 { try decode(UInt32.self as UInt32.Type, generic: key) }
    func decode(_ type: UInt64.Type, forKey key: Key) throws -> UInt64 { try decode(UInt64.self as UInt64.Type, generic: key) }

    private func decode<T: Decodable>(_ type: T.Type, generic key: Key) throws -> T { try decode(type, forKey: key) }

    func nestedContainer<NestedKey: CodingKey>(keyedBy type: NestedKey.Type, forKey key: Key) throws -> KeyedDecodingContainer<NestedKey> {
        throw FieldMixDecoder.unsupported
    }
    func nestedUnkeyedContainer(forKey key: Key) throws -> any UnkeyedDecodingContainer { throw FieldMixDecoder.unsupported }
    func superDecoder() throws -> any Decoder { throw FieldMixDecoder.unsupported }
    func superDecoder(forKey key: Key) throws -> any Decoder { throw FieldMixDecoder.unsupported }
}
