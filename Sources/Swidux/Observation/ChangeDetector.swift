/// Decides whether a value read by an observer changed, without keeping a copy of large
/// collections, and without requiring `Equatable`:
///
/// - fingerprinted values (``EntityStore`` and other ``ChangeFingerprinting`` values)
///   compare fingerprints, in O(1);
/// - structs that contain fingerprinted values are compared field by field;
/// - other `Equatable` values compare with `==`;
/// - values that are not `Equatable` are compared structurally, down to `Equatable` leaves:
///   structs and tuples field by field, arrays and dictionaries element by element,
///   optionals and enums by case and payload; a value of another dynamic type (an
///   existential slice that now holds another type) is changed;
/// - floating-point leaves (and other `Equatable` values) are unchanged when `==` says so
///   or when their bits are the same: a `Double.nan` that stays is unchanged, the rule the
///   tracker's gate applies by comparing bits (see `SliceGroup`);
/// - class instances that are not `Equatable` compare by identity (the same object is
///   unchanged, whatever happened inside it);
/// - only what cannot be compared at all (closures, metatypes, values nested deeper than
///   ``maxDepth``) counts as changed.
enum ChangeDetector {
    /// Nesting depth beyond which a non-`Equatable` value counts as changed.
    static let maxDepth = 32

    /// What is remembered of a value.
    indirect enum Snapshot {
        case fingerprint(ChangeFingerprint)
        case equatable(any Equatable)
        /// A class instance, kept alive so that its identity cannot be reused.
        case identity(AnyObject)
        /// Fields, elements or the payload of a case (`tag`: the case, for enums), of a
        /// value of dynamic type `type`.
        case fields([Snapshot], type: ObjectIdentifier, tag: CaseTag?)
        case opaque
    }

    /// The case of an enum value, told by something the app does not control.
    enum CaseTag: Equatable {
        /// A case with a payload: its name (the label of the payload in the mirror).
        case name(String)
        /// A case without a payload of a type that customizes its text: the bytes of the
        /// value (exact: such a value is its tag, and the payload area of an empty case is
        /// zero).
        case bytes([UInt8])
        /// A case without a payload of a type that does not customize its text: the name
        /// the runtime prints (`String(describing:)` falls back to the case name).
        case printed(String)
    }

    /// How to remember a value of one type; decided once per observed key path.
    enum Strategy {
        case fingerprint
        case equatable
        case identity
        case fields
        case opaque
    }

    static func strategy(for value: Any, depth: Int = 0) -> Strategy {
        if value is any ChangeFingerprinting { return .fingerprint }
        if depth < 3, containsFingerprinted(value, depth: depth) { return .fields }
        if value is any Equatable { return .equatable }
        guard depth < maxDepth else { return .opaque }
        switch Mirror(reflecting: value).displayStyle {
        case .struct?, .tuple?, .collection?, .dictionary?, .set?, .optional?, .enum?:
            return .fields
        case .class?:
            return .identity
        default:
            return .opaque   // closures, metatypes
        }
    }

    static func containsFingerprinted(_ value: Any, depth: Int = 0) -> Bool {
        let mirror = Mirror(reflecting: value)
        guard mirror.displayStyle == .struct || mirror.displayStyle == .tuple else { return false }
        for child in mirror.children {
            if child.value is any ChangeFingerprinting { return true }
            if depth < 2, containsFingerprinted(child.value, depth: depth + 1) { return true }
        }
        return false
    }

    static func snapshot(_ value: Any, strategy: Strategy, depth: Int = 0) -> Snapshot {
        switch strategy {
        case .fingerprint:
            return (value as? any ChangeFingerprinting).map { .fingerprint($0.changeFingerprint) } ?? .opaque
        case .equatable:
            return (value as? any Equatable).map { .equatable($0) } ?? .opaque
        case .identity:
            return .identity(value as AnyObject)
        case .opaque:
            return .opaque
        case .fields:
            let mirror = Mirror(reflecting: value)
            let children = mirror.children.map { child in
                snapshot(child.value, strategy: Self.strategy(for: child.value, depth: depth + 1), depth: depth + 1)
            }
            return .fields(children, type: ObjectIdentifier(type(of: value)), tag: tag(of: value, mirror))
        }
    }

    /// The case of an enum value (`nil` for anything else): the label of its payload, or,
    /// for a case without payload, its bytes when its type could print something else
    /// than the case name (a custom `description` that does not name the case must not
    /// hide a change), else the case name.
    private static func tag(of value: Any, _ mirror: Mirror) -> CaseTag? {
        guard mirror.displayStyle == .enum else { return nil }
        if let label = mirror.children.first?.label { return .name(label) }
        // The protocols through which `String(describing:)` prints something else than the
        // runtime's case name; opening the existential gives the value's own type.
        func bytes<T>(_ value: T) -> CaseTag { .bytes(withUnsafeBytes(of: value) { Array($0) }) }
        if let custom = value as? any CustomStringConvertible { return bytes(custom) }
        if let custom = value as? any CustomDebugStringConvertible { return bytes(custom) }
        if let custom = value as? any TextOutputStreamable { return bytes(custom) }
        if let custom = value as? any CustomReflectable { return bytes(custom) }
        return .printed(String(describing: value))
    }

    /// `true` if `value` differs from what `snapshot` remembered.
    static func hasChanged(_ snapshot: Snapshot, to value: Any) -> Bool {
        switch snapshot {
        case .opaque:
            return true
        case .fingerprint(let old):
            guard let new = value as? any ChangeFingerprinting else { return true }
            return new.changeFingerprint != old
        case .equatable(let old):
            return !isEqual(old, value)
        case .identity(let old):
            guard type(of: value) is AnyClass else { return true }
            return (value as AnyObject) !== old
        case .fields(let old, let oldType, let oldTag):
            guard ObjectIdentifier(type(of: value)) == oldType else { return true }
            let mirror = Mirror(reflecting: value)
            guard tag(of: value, mirror) == oldTag else { return true }
            let children = mirror.children
            guard children.count == old.count else { return true }
            for (snapshot, child) in zip(old, children) where hasChanged(snapshot, to: child.value) {
                return true
            }
            return false
        }
    }

    /// `lhs == rhs`, or the same bits (see ``sameValue(_:_:)``); `false` for another type.
    static func isEqual(_ lhs: any Equatable, _ rhs: Any) -> Bool {
        func open<T: Equatable>(_ lhs: T) -> Bool {
            guard type(of: rhs) == type(of: lhs as Any), let rhs = rhs as? T else { return false }
            return sameValue(lhs, rhs)
        }
        return open(lhs)
    }

    /// The one rule by which an `Equatable` value is unchanged, on both sides of the
    /// tracker's gate: `==`, or the same bits. Bits matter where `==` is not reflexive: a
    /// floating-point NaN is not `==` to itself, but a slice that keeps it is unchanged (the
    /// gate, which compares bits, says so too). Equal bits of a value whose old copy is
    /// kept are the same contents (a buffer it shares would have been copied on write).
    @inline(__always)
    static func sameValue<T: Equatable>(_ lhs: T, _ rhs: T) -> Bool {
        lhs == rhs || sameBits(lhs, rhs)
    }

    /// The bytes of the two values are the same.
    @inline(never)
    static func sameBits<T>(_ lhs: T, _ rhs: T) -> Bool {
        withUnsafeBytes(of: lhs) { a in withUnsafeBytes(of: rhs) { b in a.elementsEqual(b) } }
    }
}

/// Remembers one observed value and tells when it changed.
struct TrackedValue<Root> {
    let read: (Root) -> Any
    /// How values of the dynamic type last seen are remembered (decided again when an
    /// existential slice comes to hold another type).
    private(set) var strategy: ChangeDetector.Strategy
    private var valueType: ObjectIdentifier
    var last: ChangeDetector.Snapshot

    init(root: Root, read: @escaping (Root) -> Any) {
        self.read = read
        let value = read(root)
        strategy = ChangeDetector.strategy(for: value)
        valueType = ObjectIdentifier(type(of: value))
        last = ChangeDetector.snapshot(value, strategy: strategy)
    }

    /// Compares with the remembered value and remembers the new one.
    mutating func update(from root: Root) -> Bool {
        let value = read(root)
        let type = ObjectIdentifier(Swift.type(of: value))
        if type != valueType {
            valueType = type
            strategy = ChangeDetector.strategy(for: value)
        } else if !ChangeDetector.hasChanged(last, to: value) {
            return false
        }
        last = ChangeDetector.snapshot(value, strategy: strategy)
        return true
    }
}
