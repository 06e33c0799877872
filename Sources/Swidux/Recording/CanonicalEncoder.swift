import Foundation

/// Encodes a value to a ``CanonicalValue``: what `JSONEncoder` would write, except that the
/// elements of every `Set` and the pairs of every `Dictionary` keyed by other than strings or
/// integers are sorted by their content.
///
/// Both encode in iteration order, which follows the process's hash seed (random per
/// process) and the collection's history (a set shrunk from thousands of elements iterates
/// otherwise than an equal set built fresh): hashed as they are, equal values would get
/// different fingerprints, in one process and from one process to the next.
final class CanonicalEncoder: Encoder {
    let codingPath: [any CodingKey]
    var userInfo: [CodingUserInfoKey: Any] { [:] }
    /// What the value encoded (a container still being filled, or a single value).
    fileprivate var slot: CanonicalSlot?

    fileprivate init(codingPath: [any CodingKey]) {
        self.codingPath = codingPath
    }

    /// The canonical form of `value`.
    static func canonical<T: Encodable>(_ value: T) throws -> CanonicalValue {
        try canonical(value, at: [])
    }

    fileprivate static func canonical<T: Encodable>(_ value: T, at codingPath: [any CodingKey]) throws -> CanonicalValue {
        // The types `JSONEncoder` writes its own way, written as it does.
        if T.self == Data.self { return .data(value as! Data) }
        if T.self == URL.self { return .string((value as! URL).absoluteString) }
        if T.self == Decimal.self { return .decimal(value as! Decimal) }
        if T.self == String.self { return .string(value as! String) }
        let encoder = CanonicalEncoder(codingPath: codingPath)
        try value.encode(to: encoder)
        // A value that encoded nothing is an empty object, as `JSONEncoder` writes it.
        let result = encoder.slot?.value ?? .object([])
        if let unordered = T.self as? any HashOrderedCollection.Type { return unordered.canonicalized(result) }
        return result
    }

    func container<Key: CodingKey>(keyedBy type: Key.Type) -> KeyedEncodingContainer<Key> {
        let box: CanonicalObjectBox
        if case .object(let existing) = slot {
            box = existing
        } else {
            box = CanonicalObjectBox()
            slot = .object(box)
        }
        return KeyedEncodingContainer(CanonicalKeyedContainer<Key>(box: box, codingPath: codingPath))
    }

    func unkeyedContainer() -> any UnkeyedEncodingContainer {
        let box: CanonicalArrayBox
        if case .array(let existing) = slot {
            box = existing
        } else {
            box = CanonicalArrayBox()
            slot = .array(box)
        }
        return CanonicalUnkeyedContainer(box: box, codingPath: codingPath)
    }

    func singleValueContainer() -> any SingleValueEncodingContainer {
        CanonicalSingleValueContainer(encoder: self)
    }
}

/// What a container holds at one place: a finished value, or a container still open.
fileprivate enum CanonicalSlot {
    case value(CanonicalValue)
    case array(CanonicalArrayBox)
    case object(CanonicalObjectBox)

    var value: CanonicalValue {
        switch self {
        case .value(let value): value
        case .array(let box): .array(box.slots.map(\.value))
        case .object(let box): .object(box.entries.map { (key: $0.key, value: $0.slot.value) })
        }
    }
}

fileprivate final class CanonicalArrayBox {
    var slots: [CanonicalSlot] = []
}

fileprivate final class CanonicalObjectBox {
    var entries: [(key: String, slot: CanonicalSlot)] = []

    func set(_ slot: CanonicalSlot, for key: String) {
        // A key encoded twice keeps its last value, as `JSONEncoder` does.
        if let index = entries.firstIndex(where: { $0.key == key }) {
            entries[index].slot = slot
        } else {
            entries.append((key, slot))
        }
    }
}

/// A coding key of an unkeyed container's element (for coding paths).
private struct CanonicalIndexKey: CodingKey {
    var intValue: Int?
    var stringValue: String { "Index \(intValue ?? 0)" }
    init(_ index: Int) { intValue = index }
    init?(stringValue: String) { nil }
    init?(intValue: Int) { self.intValue = intValue }
}

private struct CanonicalKeyedContainer<Key: CodingKey>: KeyedEncodingContainerProtocol {
    let box: CanonicalObjectBox
    let codingPath: [any CodingKey]

    private func put(_ value: CanonicalValue, _ key: Key) { box.set(.value(value), for: key.stringValue) }

    mutating func encodeNil(forKey key: Key) throws { put(.null, key) }
    mutating func encode(_ value: Bool, forKey key: Key) throws { put(.bool(value), key) }
    mutating func encode(_ value: String, forKey key: Key) throws { put(.string(value), key) }
    mutating func encode(_ value: Double, forKey key: Key) throws { put(.double(value), key) }
    mutating func encode(_ value: Float, forKey key: Key) throws { put(.float(value), key) }
    mutating func encode(_ value: Int, forKey key: Key) throws { put(.int(Int64(value)), key) }
    mutating func encode(_ value: Int8, forKey key: Key) throws { put(.int(Int64(value)), key) }
    mutating func encode(_ value: Int16, forKey key: Key) throws { put(.int(Int64(value)), key) }
    mutating func encode(_ value: Int32, forKey key: Key) throws { put(.int(Int64(value)), key) }
    mutating func encode(_ value: Int64, forKey key: Key) throws { put(.int(value), key) }
    mutating func encode(_ value: UInt, forKey key: Key) throws { put(.uint(UInt64(value)), key) }
    mutating func encode(_ value: UInt8, forKey key: Key) throws { put(.uint(UInt64(value)), key) }
    mutating func encode(_ value: UInt16, forKey key: Key) throws { put(.uint(UInt64(value)), key) }
    mutating func encode(_ value: UInt32, forKey key: Key) throws { put(.uint(UInt64(value)), key) }
    mutating func encode(_ value: UInt64, forKey key: Key) throws { put(.uint(value), key) }
    mutating func encode<T: Encodable>(_ value: T, forKey key: Key) throws {
        put(try CanonicalEncoder.canonical(value, at: codingPath + [key]), key)
    }

    mutating func nestedContainer<NestedKey: CodingKey>(
        keyedBy keyType: NestedKey.Type, forKey key: Key
    ) -> KeyedEncodingContainer<NestedKey> {
        let nested = CanonicalObjectBox()
        box.set(.object(nested), for: key.stringValue)
        return KeyedEncodingContainer(CanonicalKeyedContainer<NestedKey>(box: nested, codingPath: codingPath + [key]))
    }

    mutating func nestedUnkeyedContainer(forKey key: Key) -> any UnkeyedEncodingContainer {
        let nested = CanonicalArrayBox()
        box.set(.array(nested), for: key.stringValue)
        return CanonicalUnkeyedContainer(box: nested, codingPath: codingPath + [key])
    }

    mutating func superEncoder() -> any Encoder { makeSuperEncoder(named: "super") }

    mutating func superEncoder(forKey key: Key) -> any Encoder { makeSuperEncoder(named: key.stringValue) }

    private func makeSuperEncoder(named key: String) -> any Encoder {
        let encoder = CanonicalSuperEncoder(codingPath: codingPath + [CanonicalKey(key)])
        encoder.store = { [box] slot in box.set(slot, for: key) }
        box.set(.value(.object([])), for: key)
        return encoder
    }
}

private struct CanonicalUnkeyedContainer: UnkeyedEncodingContainer {
    let box: CanonicalArrayBox
    let codingPath: [any CodingKey]
    var count: Int { box.slots.count }

    private func add(_ value: CanonicalValue) { box.slots.append(.value(value)) }

    mutating func encodeNil() throws { add(.null) }
    mutating func encode(_ value: Bool) throws { add(.bool(value)) }
    mutating func encode(_ value: String) throws { add(.string(value)) }
    mutating func encode(_ value: Double) throws { add(.double(value)) }
    mutating func encode(_ value: Float) throws { add(.float(value)) }
    mutating func encode(_ value: Int) throws { add(.int(Int64(value))) }
    mutating func encode(_ value: Int8) throws { add(.int(Int64(value))) }
    mutating func encode(_ value: Int16) throws { add(.int(Int64(value))) }
    mutating func encode(_ value: Int32) throws { add(.int(Int64(value))) }
    mutating func encode(_ value: Int64) throws { add(.int(value)) }
    mutating func encode(_ value: UInt) throws { add(.uint(UInt64(value))) }
    mutating func encode(_ value: UInt8) throws { add(.uint(UInt64(value))) }
    mutating func encode(_ value: UInt16) throws { add(.uint(UInt64(value))) }
    mutating func encode(_ value: UInt32) throws { add(.uint(UInt64(value))) }
    mutating func encode(_ value: UInt64) throws { add(.uint(value)) }
    mutating func encode<T: Encodable>(_ value: T) throws {
        add(try CanonicalEncoder.canonical(value, at: codingPath + [CanonicalIndexKey(count)]))
    }

    mutating func nestedContainer<NestedKey: CodingKey>(keyedBy keyType: NestedKey.Type) -> KeyedEncodingContainer<NestedKey> {
        let nested = CanonicalObjectBox()
        let path = codingPath + [CanonicalIndexKey(count)]
        box.slots.append(.object(nested))
        return KeyedEncodingContainer(CanonicalKeyedContainer<NestedKey>(box: nested, codingPath: path))
    }

    mutating func nestedUnkeyedContainer() -> any UnkeyedEncodingContainer {
        let nested = CanonicalArrayBox()
        let path = codingPath + [CanonicalIndexKey(count)]
        box.slots.append(.array(nested))
        return CanonicalUnkeyedContainer(box: nested, codingPath: path)
    }

    mutating func superEncoder() -> any Encoder {
        let index = count
        let encoder = CanonicalSuperEncoder(codingPath: codingPath + [CanonicalIndexKey(index)])
        box.slots.append(.value(.object([])))
        encoder.store = { [box] slot in box.slots[index] = slot }
        return encoder
    }
}

private struct CanonicalSingleValueContainer: SingleValueEncodingContainer {
    let encoder: CanonicalEncoder
    var codingPath: [any CodingKey] { encoder.codingPath }

    private func set(_ value: CanonicalValue) { encoder.slot = .value(value) }

    mutating func encodeNil() throws { set(.null) }
    mutating func encode(_ value: Bool) throws { set(.bool(value)) }
    mutating func encode(_ value: String) throws { set(.string(value)) }
    mutating func encode(_ value: Double) throws { set(.double(value)) }
    mutating func encode(_ value: Float) throws { set(.float(value)) }
    mutating func encode(_ value: Int) throws { set(.int(Int64(value))) }
    mutating func encode(_ value: Int8) throws { set(.int(Int64(value))) }
    mutating func encode(_ value: Int16) throws { set(.int(Int64(value))) }
    mutating func encode(_ value: Int32) throws { set(.int(Int64(value))) }
    mutating func encode(_ value: Int64) throws { set(.int(value)) }
    mutating func encode(_ value: UInt) throws { set(.uint(UInt64(value))) }
    mutating func encode(_ value: UInt8) throws { set(.uint(UInt64(value))) }
    mutating func encode(_ value: UInt16) throws { set(.uint(UInt64(value))) }
    mutating func encode(_ value: UInt32) throws { set(.uint(UInt64(value))) }
    mutating func encode(_ value: UInt64) throws { set(.uint(value)) }
    mutating func encode<T: Encodable>(_ value: T) throws {
        set(try CanonicalEncoder.canonical(value, at: codingPath))
    }
}

/// The encoder of a `superEncoder()`: stores what it encoded where the container reserved.
private final class CanonicalSuperEncoder: Encoder {
    let codingPath: [any CodingKey]
    var userInfo: [CodingUserInfoKey: Any] { [:] }
    var store: (CanonicalSlot) -> Void = { _ in }
    private let inner: CanonicalEncoder

    init(codingPath: [any CodingKey]) {
        self.codingPath = codingPath
        inner = CanonicalEncoder(codingPath: codingPath)
    }

    func container<Key: CodingKey>(keyedBy type: Key.Type) -> KeyedEncodingContainer<Key> {
        defer { store(inner.slot!) }
        return inner.container(keyedBy: type)
    }

    func unkeyedContainer() -> any UnkeyedEncodingContainer {
        defer { store(inner.slot!) }
        return inner.unkeyedContainer()
    }

    func singleValueContainer() -> any SingleValueEncodingContainer {
        CanonicalSuperSingleValue(encoder: self, inner: inner)
    }

    fileprivate func commit() { if let slot = inner.slot { store(slot) } }
}

/// A single value written through a super encoder: stored at once.
private struct CanonicalSuperSingleValue: SingleValueEncodingContainer {
    let encoder: CanonicalSuperEncoder
    var base: any SingleValueEncodingContainer
    var codingPath: [any CodingKey] { encoder.codingPath }

    init(encoder: CanonicalSuperEncoder, inner: CanonicalEncoder) {
        self.encoder = encoder
        base = inner.singleValueContainer()
    }

    mutating func encodeNil() throws { try base.encodeNil(); encoder.commit() }
    mutating func encode(_ value: Bool) throws { try base.encode(value); encoder.commit() }
    mutating func encode(_ value: String) throws { try base.encode(value); encoder.commit() }
    mutating func encode(_ value: Double) throws { try base.encode(value); encoder.commit() }
    mutating func encode(_ value: Float) throws { try base.encode(value); encoder.commit() }
    mutating func encode(_ value: Int) throws { try base.encode(value); encoder.commit() }
    mutating func encode(_ value: Int8) throws { try base.encode(value); encoder.commit() }
    mutating func encode(_ value: Int16) throws { try base.encode(value); encoder.commit() }
    mutating func encode(_ value: Int32) throws { try base.encode(value); encoder.commit() }
    mutating func encode(_ value: Int64) throws { try base.encode(value); encoder.commit() }
    mutating func encode(_ value: UInt) throws { try base.encode(value); encoder.commit() }
    mutating func encode(_ value: UInt8) throws { try base.encode(value); encoder.commit() }
    mutating func encode(_ value: UInt16) throws { try base.encode(value); encoder.commit() }
    mutating func encode(_ value: UInt32) throws { try base.encode(value); encoder.commit() }
    mutating func encode(_ value: UInt64) throws { try base.encode(value); encoder.commit() }
    mutating func encode<T: Encodable>(_ value: T) throws { try base.encode(value); encoder.commit() }
}
