import Foundation

/// A value as its JSON encoding holds it, where the elements of a `Set` and the entries of a
/// `Dictionary` are in an order of their own content (see ``CanonicalEncoder``).
///
/// Encoded with `JSONEncoder` (keys sorted), a value with no set and no dictionary gives the
/// same bytes as the value itself: fingerprints of recordings made before stay valid.
enum CanonicalValue {
    case null
    case bool(Bool)
    case int(Int64)
    case uint(UInt64)
    case double(Double)
    case float(Float)
    case string(String)
    /// `JSONEncoder` writes `Data` as Base64 and `Decimal` as a number: kept as they are so
    /// that it still does.
    case data(Data)
    case decimal(Decimal)
    case array([CanonicalValue])
    case object([(key: String, value: CanonicalValue)])

    /// The kinds, in the order ``compare(_:_:)`` puts them.
    private var rank: Int {
        switch self {
        case .null: 0
        case .bool: 1
        case .int: 2
        case .uint: 3
        case .double: 4
        case .float: 5
        case .decimal: 6
        case .string: 7
        case .data: 8
        case .array: 9
        case .object: 10
        }
    }

    /// A total order of values by their content (-1, 0, 1): 0 only for values that encode
    /// alike. Strings and data compare by their bytes, floating-point numbers by their total
    /// order, objects by their entries sorted by key.
    static func compare(_ a: CanonicalValue, _ b: CanonicalValue) -> Int {
        switch (a, b) {
        case (.null, .null): return 0
        case (.bool(let x), .bool(let y)): return x == y ? 0 : (x ? 1 : -1)
        case (.int(let x), .int(let y)): return x == y ? 0 : (x < y ? -1 : 1)
        case (.uint(let x), .uint(let y)): return x == y ? 0 : (x < y ? -1 : 1)
        case (.double(let x), .double(let y)):
            return x.bitPattern == y.bitPattern ? 0 : (x.isTotallyOrdered(belowOrEqualTo: y) ? -1 : 1)
        case (.float(let x), .float(let y)):
            return x.bitPattern == y.bitPattern ? 0 : (x.isTotallyOrdered(belowOrEqualTo: y) ? -1 : 1)
        case (.decimal(let x), .decimal(let y)): return x == y ? 0 : (x < y ? -1 : 1)
        case (.string(let x), .string(let y)): return bytes(x.utf8, y.utf8)
        case (.data(let x), .data(let y)): return bytes(x, y)
        case (.array(let x), .array(let y)):
            for (left, right) in zip(x, y) {
                let order = compare(left, right)
                if order != 0 { return order }
            }
            return x.count == y.count ? 0 : (x.count < y.count ? -1 : 1)
        case (.object(let x), .object(let y)):
            let left = sortedEntries(x), right = sortedEntries(y)
            for (l, r) in zip(left, right) {
                let key = bytes(l.key.utf8, r.key.utf8)
                if key != 0 { return key }
                let value = compare(l.value, r.value)
                if value != 0 { return value }
            }
            return left.count == right.count ? 0 : (left.count < right.count ? -1 : 1)
        default:
            return a.rank < b.rank ? -1 : 1
        }
    }

    private static func sortedEntries(_ entries: [(key: String, value: CanonicalValue)]) -> [(key: String, value: CanonicalValue)] {
        entries.sorted { $0.key.utf8.lexicographicallyPrecedes($1.key.utf8) }
    }

    private static func bytes(_ x: some Sequence<UInt8>, _ y: some Sequence<UInt8>) -> Int {
        var left = x.makeIterator(), right = y.makeIterator()
        while true {
            switch (left.next(), right.next()) {
            case (nil, nil): return 0
            case (nil, _): return -1
            case (_, nil): return 1
            case (let l?, let r?): if l != r { return l < r ? -1 : 1 }
            }
        }
    }

    /// The elements of a set, in content order.
    static func sortingElements(_ value: CanonicalValue) -> CanonicalValue {
        guard case .array(let elements) = value, elements.count > 1 else { return value }
        return .array(elements.sorted { compare($0, $1) < 0 })
    }

    /// A dictionary encoded as `[key, value, key, value, …]` (keys that are not strings nor
    /// integers), its pairs in the order of their keys. A dictionary encoded as an object needs
    /// nothing: `JSONEncoder` sorts its keys.
    static func sortingPairs(_ value: CanonicalValue) -> CanonicalValue {
        guard case .array(let flat) = value, flat.count > 2, flat.count % 2 == 0 else { return value }
        var pairs: [(CanonicalValue, CanonicalValue)] = []
        pairs.reserveCapacity(flat.count / 2)
        for index in stride(from: 0, to: flat.count, by: 2) { pairs.append((flat[index], flat[index + 1])) }
        pairs.sort { left, right in
            let key = compare(left.0, right.0)
            return key != 0 ? key < 0 : compare(left.1, right.1) < 0
        }
        var sorted: [CanonicalValue] = []
        sorted.reserveCapacity(flat.count)
        for (key, value) in pairs { sorted.append(key); sorted.append(value) }
        return .array(sorted)
    }
}

extension CanonicalValue: Encodable {
    func encode(to encoder: any Encoder) throws {
        switch self {
        case .null:
            var container = encoder.singleValueContainer()
            try container.encodeNil()
        case .bool(let value):
            var container = encoder.singleValueContainer()
            try container.encode(value)
        case .int(let value):
            var container = encoder.singleValueContainer()
            try container.encode(value)
        case .uint(let value):
            var container = encoder.singleValueContainer()
            try container.encode(value)
        case .double(let value):
            var container = encoder.singleValueContainer()
            try container.encode(value)
        case .float(let value):
            var container = encoder.singleValueContainer()
            try container.encode(value)
        case .string(let value):
            var container = encoder.singleValueContainer()
            try container.encode(value)
        case .data(let value):
            var container = encoder.singleValueContainer()
            try container.encode(value)
        case .decimal(let value):
            var container = encoder.singleValueContainer()
            try container.encode(value)
        case .array(let values):
            var container = encoder.unkeyedContainer()
            for value in values { try container.encode(value) }
        case .object(let entries):
            var container = encoder.container(keyedBy: CanonicalKey.self)
            for entry in entries { try container.encode(entry.value, forKey: CanonicalKey(entry.key)) }
        }
    }
}

/// A coding key made from its string.
struct CanonicalKey: CodingKey {
    var stringValue: String
    var intValue: Int? { nil }

    init(_ string: String) { stringValue = string }
    init?(stringValue: String) { self.stringValue = stringValue }
    init?(intValue: Int) { stringValue = String(intValue) }
}

/// Collections whose encoding follows their iteration order, which depends on the process's
/// hash seed and on the collection's history: ``CanonicalEncoder`` sorts them.
protocol HashOrderedCollection {
    static func canonicalized(_ value: CanonicalValue) -> CanonicalValue
}

extension Set: HashOrderedCollection {
    static func canonicalized(_ value: CanonicalValue) -> CanonicalValue { CanonicalValue.sortingElements(value) }
}

extension Dictionary: HashOrderedCollection {
    static func canonicalized(_ value: CanonicalValue) -> CanonicalValue { CanonicalValue.sortingPairs(value) }
}
