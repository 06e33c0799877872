extension Effect {
    /// Namespaces the cancel ids of this effect by `scope`: `.cancellable(id:)` and
    /// `.cancel(id:)` inside it only meet ids started in the same scope.
    ///
    /// ``SwiduxReducer/lifted(state:extract:embed:environment:)`` and
    /// ``SwiduxReducer/reduce(_:at:action:embed:environment:)`` do this with the child's state
    /// key path, so a feature composed twice (`\.left`, `\.right`) keeps one `CancelID.timer`
    /// per instance, whether its actions come through `store.scope(state: \.left, embed: …)`,
    /// the root store, or its own effects. Scopes nest (a child of `\.left` is namespaced by
    /// both). A parent reaches one child's ids by scoping its own effect the same way; an id
    /// shared by every scope is a ``GlobalCancelID``.
    ///
    /// ```swift
    /// case .stopLeftTimer:
    ///     return Effect.cancel(id: TimerFeature.CancelID.timer).scoped(\AppState.left)
    /// ```
    public func scoped(_ scope: some Hashable & Sendable) -> Effect {
        let key: AnyHashable = (scope as? AnyKeyPath).map { AnyHashable($0) } ?? AnyHashable(scope)
        return Effect(operation: .scoped(key, self))
    }
}

extension Effect {
    /// ``scoped(_:)`` by a state key path (key paths are not `Sendable` in general; the
    /// runner only hashes and compares them).
    func scoped(byPath path: AnyKeyPath) -> Effect {
        Effect(operation: .scoped(AnyHashable(path), self))
    }
}
