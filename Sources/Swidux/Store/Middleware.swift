/// Code that runs around every reduce of a ``Store``: before it sees the state the action
/// will be applied to; after it may adjust the new state (persistence drains change logs here).
///
/// ```swift
/// final class Analytics: Middleware {
///     func afterReduce(state: inout AppState, action: AppAction) {
///         tracker.record("\(action)")
///     }
/// }
/// let store = Store(initialState: AppState(), reducer: AppReducer(), environment: env,
///                   middleware: [Analytics()])
/// ```
///
/// ``PersistenceMiddleware`` and ``UndoMiddleware`` plug into the store through its
/// `persistence:` and `undo:` parameters; ``LoggingMiddleware`` through `middleware:`.
@MainActor
public protocol Middleware<State, Action>: AnyObject {
    associatedtype State
    associatedtype Action
    /// Called before the reducer runs, with the state the action applies to.
    func beforeReduce(state: State, action: Action)
    /// Called after the reducer ran, with the new state.
    func afterReduce(state: inout State, action: Action)
}

extension Middleware {
    public func beforeReduce(state: State, action: Action) {}
    public func afterReduce(state: inout State, action: Action) {}
}
