/// What ``Store/applyExternalChanges(_:)`` did with a batch: passed to middleware
/// (``Middleware/didApplyExternalChanges(_:state:)``) and returned.
///
/// ```swift
/// let applied = store.applyExternalChanges(changes)
/// if !applied.keptLocal.isEmpty { print("kept local values of \(applied.keptLocal.count) entities") }
/// ```
public struct AppliedExternalChanges: Sendable, CustomStringConvertible {
    /// Who made the changes (``ExternalChanges/origin``).
    public var origin: String
    /// Entities inserted or replaced.
    public var upserted: Int = 0
    /// Entities removed.
    public var deleted: Int = 0
    /// Ids left as they are because the store has a change of them not yet flushed (its
    /// value is written later and wins).
    public var keptLocal: [any Hashable & Sendable] = []
    /// The entity stores the batch touched (their key paths).
    public var slices: [String] = []

    /// Creates a report.
    ///
    /// ```swift
    /// let report = AppliedExternalChanges(origin: "sync")
    /// ```
    public init(origin: String) {
        self.origin = origin
    }

    /// "external changes from sync: 2 upserted, 1 deleted, 0 kept local (\\AppState.todos)".
    public var description: String {
        "external changes from \(origin): \(upserted) upserted, \(deleted) deleted, \(keptLocal.count) kept local (\(slices.joined(separator: ", ")))"
    }
}
