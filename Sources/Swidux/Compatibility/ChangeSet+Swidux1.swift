import Foundation

extension ChangeSet where ID == UUID {
    /// An empty change set of `UUID` ids: Swidux 1.0's `ChangeSet()`, whose ids were always
    /// `UUID`. Name the id type instead.
    ///
    /// ```swift
    /// var changes = ChangeSet<UUID>()
    /// changes.recordUpsert(card.id)
    /// ```
    @available(*, deprecated, message: "Name the id type: ChangeSet<UUID>()")
    @_disfavoredOverload
    public init() {}
}
