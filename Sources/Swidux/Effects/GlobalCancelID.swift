/// A cancel id that is the same in every scope: it is not namespaced by the reducer scope
/// an effect starts in (see ``Effect/scoped(_:)``), so any reducer can cancel it.
///
/// Plain ids are namespaced: two instances of one feature composed with
/// ``SwiduxReducer/lifted(state:extract:embed:environment:)`` at `\.left` and `\.right` each
/// have their own `CancelID.timer`. Wrap an id to share it across scopes:
///
/// ```swift
/// // in any feature:
/// return .run { send in ... }.cancellable(id: GlobalCancelID(SyncID()))
/// // anywhere else (a parent, another feature):
/// return .cancel(id: GlobalCancelID(SyncID()))
/// ```
public struct GlobalCancelID<ID: Hashable & Sendable>: Hashable, Sendable, GlobalCancelIDMarker {
    /// The wrapped id.
    public let id: ID

    /// Wraps `id` so that it is the same id in every scope.
    public init(_ id: ID) { self.id = id }
}

/// Marks ``GlobalCancelID`` for the runner, whatever its generic argument.
protocol GlobalCancelIDMarker {}
