import Atomics

/// A token that changes whenever the value that carries it changes.
///
/// Two values with equal fingerprints have equal contents. The converse does not
/// hold: a value rebuilt with the same contents gets a new fingerprint. The store
/// compares fingerprints instead of keeping a copy of a large collection, which
/// keeps change detection O(1) and avoids copy-on-write copies per dispatch.
public struct ChangeFingerprint: Hashable, Sendable, CustomStringConvertible {
    @usableFromInline let raw: UInt64

    @usableFromInline init(raw: UInt64) { self.raw = raw }

    /// A fingerprint never handed out before, in this process.
    @inlinable
    public static func next() -> ChangeFingerprint {
        ChangeFingerprint(raw: fingerprintCounter.wrappingIncrementThenLoad(ordering: .relaxed))
    }

    /// Marks the fingerprints handed out so far as seen by a reader of an entity store's
    /// observation log: the next change starts a new step of the log, which the reader
    /// finds by the fingerprint it saw (see `EntityObservationLog.didChange`).
    @inlinable
    static func markSeen() {
        fingerprintCounter.wrappingIncrement(ordering: .relaxed)
    }

    public var description: String { "#\(raw)" }
}

@usableFromInline
let fingerprintCounter = ManagedAtomic<UInt64>(0)

/// A value whose changes the ``Store`` detects by comparing fingerprints.
///
/// ``EntityStore`` conforms. Conform your own large collection types so that a
/// reader of a slice holding them is notified in O(1) per dispatch:
///
/// ```swift
/// struct Timeline: ChangeFingerprinting {
///     private(set) var events: [Event] = [] { didSet { changeFingerprint = .next() } }
///     private(set) var changeFingerprint = ChangeFingerprint.next()
/// }
/// ```
public protocol ChangeFingerprinting {
    /// Changes whenever the contents change.
    var changeFingerprint: ChangeFingerprint { get }
}
