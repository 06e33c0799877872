/// The reducer contract (seed 002): mutate state for an action, optionally return an
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
    associatedtype State
    associatedtype Action
    associatedtype RootAction
    associatedtype Environment

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
    public typealias RootAction = Action
    let body: (inout State, Action, Environment) -> Effect<Action>?

    public init(_ body: @escaping (inout State, Action, Environment) -> Effect<Action>?) {
        self.body = body
    }

    public func reduce(state: inout State, action: Action, environment: Environment) -> Effect<Action>? {
        body(&state, action, environment)
    }
}
