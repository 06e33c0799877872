/// Which parts of a state a ``SessionRecorder`` fingerprints after every action, and how a
/// replay fingerprints its own state to compare.
///
/// ```swift
/// let fingerprint = StateFingerprint<AppState>()
///     .entities(\.lists)
///     .entities(\.items)
///     .field(\.ui)
/// ```
///
/// Each part has its own 32-bit fingerprint in the recording, so a replay names the part
/// that differs. The cost after an action is O(what changed):
/// - an ``EntityStore`` part finds the ids the action changed in the store's change log
///   and hashes only those entities (and the links to their neighbours, for the order);
///   a reorder (`sort`, `move(fromOffsets:toOffset:)`) relinks the order from cached hashes,
///   O(*n*) additions; a change the log cannot name (a store assigned whole, a step with too
///   many ids) rehashes that store, O(*n*) hashes;
/// - a field part compares the value with the last one (`==`) and hashes it when it changed.
///
/// Hashing (of the JSON encoding, keys sorted) runs off the main actor, in the recorder's
/// writer. Parts not named are not fingerprinted: a replay does not see them differ.
/// `.field(\.self)` fingerprints a whole `Codable & Equatable` state (O(state) per action).
///
/// Parts are `Codable`: a recorder started with `snapshot: true` writes the parts' values
/// at the start in its header, and a replay starts from them.
public struct StateFingerprint<State> {
    var parts: [any FingerprintPart<State>] = []

    /// No part yet: add them with ``entities(_:named:)`` and ``field(_:named:)``.
    ///
    /// ```swift
    /// let fingerprint = StateFingerprint<AppState>().entities(\.items)
    /// ```
    public init() {}

    /// The names of the parts, in order (as a recording's header lists them).
    ///
    /// ```swift
    /// fingerprint.partNames  // ["lists", "items", "ui"]
    /// ```
    public var partNames: [String] { parts.map(\.name) }

    /// Adds an ``EntityStore`` part, fingerprinted in O(changed entities). Its entities and
    /// ids must be `Codable`: external changes to it are recorded with their entities, so
    /// that a replay can apply them.
    ///
    /// ```swift
    /// StateFingerprint<AppState>().entities(\.items)
    /// ```
    ///
    /// - Parameters:
    ///   - keyPath: the entity store.
    ///   - name: its name in the recording (default: the key path's last property).
    @inlinable
    public func entities<Entity: Codable>(
        _ keyPath: WritableKeyPath<State, EntityStore<Entity>>, named name: String? = nil
    ) -> StateFingerprint where Entity.ID: Codable {
        // The capture is made here, inlined into the app, so that it runs specialized.
        appendingEntities(keyPath, named: name) {
            var seen: ChangeFingerprint?
            guard let offset = MemoryLayout<State>.offset(of: keyPath) else {
                return { state in withUnsafePointer(to: state[keyPath: keyPath]) { EntityPartCapture.capture($0, seen: &seen) } }
            }
            // A stored property (the usual case) is read in place: a key path projection
            // costs more than the rest of the capture, and it copies the store.
            return { state in
                withUnsafePointer(to: state) { pointer in
                    let store = UnsafeRawPointer(pointer).advanced(by: offset).assumingMemoryBound(to: EntityStore<Entity>.self)
                    return EntityPartCapture.capture(store, seen: &seen)
                }
            }
        }
    }

    @usableFromInline
    func appendingEntities<Entity: Codable>(
        _ keyPath: WritableKeyPath<State, EntityStore<Entity>>, named name: String?,
        makeCapture: @escaping () -> FingerprintCapture<State>
    ) -> StateFingerprint where Entity.ID: Codable {
        var copy = self
        copy.parts.append(EntityFingerprintPart(
            keyPath: keyPath, name: name ?? Self.name(of: keyPath, index: parts.count), makeCapture: makeCapture))
        return copy
    }

    /// Adds a part compared with `==` and hashed when it changed.
    ///
    /// ```swift
    /// StateFingerprint<AppState>().field(\.ui)
    /// ```
    ///
    /// - Parameters:
    ///   - keyPath: the value (`\.self` for the whole state).
    ///   - name: its name in the recording (default: the key path's last property).
    @inlinable
    public func field<Value: Codable & Equatable & Sendable>(
        _ keyPath: WritableKeyPath<State, Value>, named name: String? = nil
    ) -> StateFingerprint {
        appendingField(keyPath, named: name) {
            var last: Value?
            return { state in
                let value = state[keyPath: keyPath]
                if let last, last == value { return nil }
                last = value
                return value
            }
        }
    }

    @usableFromInline
    func appendingField<Value: Codable & Equatable & Sendable>(
        _ keyPath: WritableKeyPath<State, Value>, named name: String?, makeCapture: @escaping () -> FingerprintCapture<State>
    ) -> StateFingerprint {
        var copy = self
        copy.parts.append(FieldFingerprintPart(
            keyPath: keyPath, name: name ?? Self.name(of: keyPath, index: parts.count), makeCapture: makeCapture))
        return copy
    }

    /// `\AppState.ui` → `"ui"`; `\AppState.self` → `"self"`; else `"part N"`.
    static func name(of keyPath: AnyKeyPath, index: Int) -> String {
        let text = String(describing: keyPath)
        guard text.hasPrefix("\\"), let dot = text.lastIndex(of: ".") else { return "part \(index)" }
        let last = text[text.index(after: dot)...]
        return last.isEmpty || last.contains(where: { !($0.isLetter || $0.isNumber || $0 == "_") })
            ? "part \(index)" : String(last)
    }

    // MARK: - Capturing and digesting

    /// The main-actor side: what changed in each part since the last call.
    func makeCaptures() -> [FingerprintCapture<State>] { parts.map { $0.makeCapture() } }

    /// The hashing side (off the main actor, or in a replay).
    func makeDigests() -> [any FingerprintDigest] { parts.map { $0.makeDigest() } }

    /// Every part whole (a rotated file's snapshot), as captures.
    func captureAll(_ state: State) -> [(part: Int, change: any Sendable)] {
        parts.indices.map { ($0, parts[$0].captureAll(state)) }
    }
}

/// A part of a ``StateFingerprint`` (an entity store, or a field).
protocol FingerprintPart<State> {
    associatedtype State
    var name: String { get }
    /// A new tracker of what changed in the part (see ``FingerprintCapture``).
    var makeCapture: () -> FingerprintCapture<State> { get }
    func makeDigest() -> any FingerprintDigest
    /// Applies a recorded external change (or snapshot) of this part (``FingerprintDigest/externalPayload(_:placed:)``).
    func applyExternal(_ payload: String, to state: inout State) throws
    /// The whole part, as a capture (for a snapshot: O(part), once per rotated file).
    func captureAll(_ state: State) -> any Sendable
}

/// Finds what changed in a part, on the main actor, in O(changed): what changed since the
/// last call, `nil` when nothing did; the first call captures all.
///
/// A closure made where the part is added (``StateFingerprint/entities(_:named:)`` and
/// ``StateFingerprint/field(_:named:)`` are inlinable), so that it runs specialized for the
/// app's types on every send: unspecialized generic code looks type metadata up at run
/// time, which cost a recorded send ten times what the send itself costs.
@usableFromInline
typealias FingerprintCapture<State> = (State) -> (any Sendable)?

/// Keeps a part's hash up to date from the captures, in order.
protocol FingerprintDigest: AnyObject {
    /// The part's hash.
    var value: UInt64 { get }
    func apply(_ capture: any Sendable, using hashing: Fingerprinting) throws
    /// What an external change did to the part (or, for a first capture, its whole value),
    /// for a replay to apply (JSON), or `nil`. `placed`: with where each changed entity
    /// stands (an undo or a redo puts entities back at their place; external changes append).
    func externalPayload(_ capture: any Sendable, placed: Bool) throws -> String?
}
