/// Armed slices grouped by the stored property of the state their key path starts with
/// (`\.rows[3].title` → `rows`). When many slices are armed, a dispatch first checks
/// which of these properties changed (O(1) each: fingerprint or bitwise identity with
/// the value kept from the previous dispatch) and compares only the slices under those:
/// a thousand rows read through `scope(state: \.rows[i], …)` cost nothing to a dispatch
/// that changes `ui`.
final class SliceGroup {
    enum Kind { case fingerprint, structural, identical }
    let field: Int
    let kind: Kind
    /// Armed slices (and disarmed ones not yet compacted away).
    var armed: [TrackedSlice] = []
    var armedCount = 0
    /// What the property was after the previous dispatch (`nil`: unknown).
    private var snapshot: Any?

    init(field: Int, kind: Kind) {
        self.field = field
        self.kind = kind
    }

    /// `true` if `value` is provably what it was after the previous dispatch; remembers it.
    func isUnchanged(_ value: Any) -> Bool {
        let unchanged: Bool
        switch kind {
        case .fingerprint:
            let now = (value as? any ChangeFingerprinting)?.changeFingerprint
            unchanged = now != nil && (snapshot as? ChangeFingerprint) == now
            snapshot = now
        case .structural:
            if let old = snapshot as? ChangeDetector.Snapshot {
                unchanged = !ChangeDetector.hasChanged(old, to: value)
            } else {
                unchanged = false
            }
            snapshot = ChangeDetector.snapshot(value, strategy: ChangeDetector.strategy(for: value))
        case .identical:
            // The kept copy holds the old value's buffers: a mutation in place would have
            // copied them, so equal bits mean the same contents (class instances: the same
            // object). Different bits prove nothing: the slices are then compared.
            unchanged = snapshot.map { SliceGroup.sameBits($0, value) } ?? false
            snapshot = value
        }
        return unchanged
    }

    func forgetSnapshot() { snapshot = nil }

    static func sameBits(_ old: Any, _ new: Any) -> Bool {
        func open<T>(_ old: T) -> Bool {
            guard let new = new as? T else { return false }
            return withUnsafeBytes(of: old) { a in withUnsafeBytes(of: new) { b in a.elementsEqual(b) } }
        }
        return open(old)
    }
}
