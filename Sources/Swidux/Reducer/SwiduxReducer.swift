/// The reducer contract: mutate state for an action, optionally return an
/// effect whose actions are root actions.
///
/// Root reducers have `Action == RootAction`; feature reducers handle a slice of the
/// actions while their effects dispatch root actions.
///
/// ```swift
/// struct ItemReducer: SwiduxReducer {
///     func reduce(state: inout AppState, action: ItemAction, environment: AppEnvironment) -> Effect<AppAction>? {
///         switch action {
///         case .create(let name):
///             let item = Item(name: name)
///             state.items[item.id] = item
///         }
///         return nil
///     }
/// }
/// ```
public protocol SwiduxReducer<State, Action, RootAction, Environment> {
    /// The state this reducer mutates: the whole app state or a feature's slice of it.
    associatedtype State
    /// The actions this reducer handles.
    associatedtype Action
    /// The actions its effects send back: the app's root action (`Action` for a root reducer).
    associatedtype RootAction
    /// The dependencies its effects use (API clients, clocks, databases); `Void` if none.
    associatedtype Environment

    /// Mutates `state` for `action` and returns the effect to run next, or `nil`.
    ///
    /// Must be pure and synchronous: all I/O goes in the returned effect.
    func reduce(state: inout State, action: Action, environment: Environment) -> Effect<RootAction>?
}

/// A reducer from a closure, for small features, tests and composition.
///
/// ```swift
/// let counter = Reduce<Int, CounterAction, Void> { count, action, _ in
///     switch action {
///     case .increment: count += 1
///     }
///     return nil
/// }
/// ```
public struct Reduce<State, Action, Environment>: SwiduxReducer {
    /// A closure reducer's effects send its own actions.
    public typealias RootAction = Action
    let body: (inout State, Action, Environment) -> Effect<Action>?

    /// A reducer that runs `body` for every action.
    public init(_ body: @escaping (inout State, Action, Environment) -> Effect<Action>?) {
        self.body = body
    }

    /// Runs the closure.
    public func reduce(state: inout State, action: Action, environment: Environment) -> Effect<Action>? {
        body(&state, action, environment)
    }
}
