/// Decides whether a value read by an observer changed, without keeping a copy of large
/// collections, and without requiring `Equatable`:
///
/// - fingerprinted values (``EntityStore`` and other ``ChangeFingerprinting`` values)
///   compare fingerprints, in O(1);
/// - structs that contain fingerprinted values are compared field by field;
/// - other `Equatable` values compare with `==`;
/// - values that are not `Equatable` are compared structurally, down to `Equatable` leaves:
///   structs and tuples field by field, arrays and dictionaries element by element,
///   optionals and enums by case and payload;
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
        /// Fields, elements or the payload of a case (`tag`: the case, for enums).
        case fields([Snapshot], tag: String? = nil)
        case opaque
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
            return .fields(children, tag: tag(of: value, mirror))
        }
    }

    /// The case of an enum value (`nil` for anything else): the label of its payload, or
    /// its name when it has none.
    private static func tag(of value: Any, _ mirror: Mirror) -> String? {
        guard mirror.displayStyle == .enum else { return nil }
        if let label = mirror.children.first?.label { return label }
        return String(describing: value)
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
        case .fields(let old, let oldTag):
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

    static func isEqual(_ lhs: any Equatable, _ rhs: Any) -> Bool {
        func open<T: Equatable>(_ lhs: T) -> Bool {
            guard let rhs = rhs as? T else { return false }
            return lhs == rhs
        }
        return open(lhs)
    }
}

/// Remembers one observed value and tells when it changed.
struct TrackedValue<Root> {
    let read: (Root) -> Any
    let strategy: ChangeDetector.Strategy
    var last: ChangeDetector.Snapshot

    init(root: Root, read: @escaping (Root) -> Any) {
        self.read = read
        let value = read(root)
        strategy = ChangeDetector.strategy(for: value)
        last = ChangeDetector.snapshot(value, strategy: strategy)
    }

    /// Compares with the remembered value and remembers the new one.
    mutating func update(from root: Root) -> Bool {
        let value = read(root)
        guard ChangeDetector.hasChanged(last, to: value) else { return false }
        last = ChangeDetector.snapshot(value, strategy: strategy)
        return true
    }
}
