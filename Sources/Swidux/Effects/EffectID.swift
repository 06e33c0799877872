/// A type-erased cancellation identifier (any `Hashable & Sendable` value), resolved in the
/// namespace of the scope its effect was started from (see ``Effect/scoped(_:)``).
struct EffectID: Hashable, @unchecked Sendable, CustomStringConvertible {
    let base: AnyHashable
    /// The scopes (outermost first) the id belongs to; empty for the root and global ids.
    private(set) var namespace: [AnyHashable] = []
    /// A ``GlobalCancelID``: the same in every scope.
    let isGlobal: Bool

    init(_ id: some Hashable & Sendable) {
        base = AnyHashable(id)
        isGlobal = id is any GlobalCancelIDMarker
    }

    /// This id as seen from an effect started in `namespace`.
    func resolved(in namespace: [AnyHashable]) -> EffectID {
        guard !isGlobal, !namespace.isEmpty else { return self }
        var id = self
        id.namespace = namespace
        return id
    }

    var description: String {
        namespace.isEmpty ? "\(base)" : "\(base) in \(namespace.map { "\($0)" }.joined(separator: " / "))"
    }
}
