/// A type-erased cancellation identifier (any `Hashable & Sendable` value).
struct EffectID: Hashable, @unchecked Sendable, CustomStringConvertible {
    let base: AnyHashable
    init(_ id: some Hashable & Sendable) { base = AnyHashable(id) }
    var description: String { "\(base)" }
}
