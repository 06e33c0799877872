import Foundation

/// Deterministic hashing for state fingerprints: the same value gives the same hash in every
/// process (Swift's `Hasher` is seeded per process, so it cannot be used).
///
/// Not thread-safe: one instance per serial user (the recording's writer, a replay).
final class Fingerprinting {
    private let encoder: JSONEncoder

    init() {
        encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
    }

    /// How many values ``hash(_:)`` hashed (tests check the O(changed) cost with it).
    private(set) var hashedValues = 0

    /// The hash of `value`'s JSON encoding (keys sorted), with the elements of its sets and
    /// the pairs of its dictionaries in an order of their content (``CanonicalEncoder``): equal
    /// values hash alike whatever their history and the process's hash seed.
    func hash(_ value: some Encodable) throws -> UInt64 {
        hashedValues += 1
        return Self.fnv1a(try encoder.encode(CanonicalEncoder.canonical(value)))
    }

    /// FNV-1a over the bytes, then mixed.
    static func fnv1a(_ data: Data) -> UInt64 {
        var hash: UInt64 = 0xCBF2_9CE4_8422_2325
        for byte in data {
            hash ^= UInt64(byte)
            hash &*= 0x0000_0100_0000_01B3
        }
        return mix(hash)
    }

    /// A bijective 64-bit mixer (the finalizer of SplitMix64).
    static func mix(_ value: UInt64) -> UInt64 {
        var z = value
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    /// The next value of a SplitMix64 sequence.
    static func splitMix(_ state: inout UInt64) -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        return mix(state)
    }

    /// The 32 bits of `value` a recording writes per part, as 8 hex digits.
    static func hex(_ value: UInt64) -> String {
        let folded = UInt32(truncatingIfNeeded: value ^ (value >> 32))
        let digits = String(folded, radix: 16)
        return String(repeating: "0", count: 8 - digits.count) + digits
    }
}
