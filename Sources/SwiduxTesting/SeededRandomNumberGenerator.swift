/// A seeded, reproducible random number generator (SplitMix64) for property and
/// model-based tests: print the seed on failure, replay it to reproduce.
///
/// ```swift
/// var rng = SeededRandomNumberGenerator(seed: 42)
/// let id = Int.random(in: 0..<100, using: &rng)
/// ```
public struct SeededRandomNumberGenerator: RandomNumberGenerator, Sendable {
    /// The generator's current state: a generator created with this value as its seed
    /// continues the same sequence.
    public private(set) var state: UInt64

    /// A generator whose sequence is fixed by `seed`.
    public init(seed: UInt64) { state = seed }

    /// The next 64 random bits of the sequence.
    public mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
