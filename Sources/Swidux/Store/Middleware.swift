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
/// A hook may read the store (it sees the current state) and send actions to it: an action
/// sent while the store is reducing is queued and reduced after the current send finished,
/// in the order sent, with its own undo step, never inside the current reduce.
///
/// ```swift
/// final class Autosave: Middleware {
///     weak var store: Store<AppState, AppAction>?
///     func afterReduce(state: inout AppState, action: AppAction) {
///         if case .edit = action, store?.state.isDirty == true { store?.send(.scheduleSave) }
///     }
/// }
/// ```
///
/// `afterReduce` works on a copy of the state handle while the store stays readable, so a
/// mutation of a large collection there copies it; mutate state in reducers where possible.
///
/// ``PersistenceMiddleware`` and ``UndoMiddleware`` plug into the store through its
/// `persistence:` and `undo:` parameters; ``LoggingMiddleware`` through `middleware:`.
@MainActor
public protocol Middleware<State, Action>: AnyObject {
    /// The state of the store the middleware is installed in.
    associatedtype State
    /// The actions of that store.
    associatedtype Action
    /// Called before the reducer runs, with the state the action applies to.
    func beforeReduce(state: State, action: Action)
    /// Called after the reducer ran, with the new state.
    func afterReduce(state: inout State, action: Action)
    /// Called after the store took in changes made outside it (another process, a sync
    /// engine: see ``Store/applyExternalChanges(_:)``), with the new state.
    func didApplyExternalChanges(_ changes: AppliedExternalChanges, state: State)
    /// Called before the reducer runs, with where the action came from (see
    /// ``ActionSource``). By default it calls ``beforeReduce(state:action:)``.
    func beforeReduce(state: State, action: Action, source: ActionSource)
    /// Called after ``Store/undo()`` (`undo == true`) or ``Store/redo()`` changed the
    /// state, with the new state.
    func didMoveInHistory(undo: Bool, state: State)
}

extension Middleware {
    /// Does nothing: implement it to look at actions before they are reduced.
    public func beforeReduce(state: State, action: Action) {}
    /// Does nothing: implement it to look at (or adjust) the state after a reduce.
    public func afterReduce(state: inout State, action: Action) {}
    public func didApplyExternalChanges(_ changes: AppliedExternalChanges, state: State) {}
    /// Calls ``beforeReduce(state:action:)``: implement it to also see the action's source.
    public func beforeReduce(state: State, action: Action, source: ActionSource) {
        beforeReduce(state: state, action: action)
    }
    /// Does nothing: implement it to see undo and redo.
    public func didMoveInHistory(undo: Bool, state: State) {}
}
