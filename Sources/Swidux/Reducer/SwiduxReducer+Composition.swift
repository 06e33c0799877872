// One vocabulary for composing a child feature into a parent, everywhere:
// - `state:` the key path of the child's state in the parent's (`at:` in `reduce`, where it
//   follows the parent state itself),
// - `extract:` parent action → child action (`nil`: not the child's),
// - `embed:` child action → parent action,
// - `environment:` last: the child's environment (or how to derive it from the parent's).
// In that order: `lifted(state:extract:embed:environment:)`,
// `reduce(_:at:action:embed:environment:)`, `store.scope(state:embed:)`.

extension SwiduxReducer {
    /// Runs this reducer on a slice of a parent state and lifts its effect into the parent's
    /// actions, in one call.
    ///
    /// The child's cancel ids are namespaced by `path` (see ``Effect/scoped(_:)``): the same
    /// feature reduced at two paths keeps separate in-flight effects.
    ///
    /// ```swift
    /// case .counter(let action):
    ///     return CounterReducer().reduce(
    ///         &state, at: \.counter, action: action,
    ///         embed: AppAction.counter, environment: environment.counter)
    /// ```
    public func reduce<ParentState, ParentAction>(
        _ parent: inout ParentState,
        at path: WritableKeyPath<ParentState, State>,
        action: Action,
        embed: @escaping @Sendable (RootAction) -> ParentAction,
        environment: Environment
    ) -> Effect<ParentAction>? {
        reduce(state: &parent[keyPath: path], action: action, environment: environment)?
            .map(embed)
            .scoped(byPath: path)
    }

    /// The former argument order of ``reduce(_:at:action:embed:environment:)`` (environment before embed).
    @available(*, deprecated, message: "Use reduce(_:at:action:embed:environment:): `embed:` now comes before `environment:`")
    public func reduce<ParentState, ParentAction>(
        _ parent: inout ParentState,
        at path: WritableKeyPath<ParentState, State>,
        action: Action,
        environment: Environment,
        embed: @escaping @Sendable (RootAction) -> ParentAction
    ) -> Effect<ParentAction>? {
        reduce(&parent, at: path, action: action, embed: embed, environment: environment)
    }

    /// This reducer as a reducer of a parent state: it runs on `state`, takes the parent's
    /// actions that `extract` recognizes, and lifts its effects with `embed`. Its cancel ids
    /// are namespaced by the key path (see ``Effect/scoped(_:)``), so a reusable feature
    /// composes twice; pair it with `store.scope(state: path, embed: embed)` in the view.
    ///
    /// ```swift
    /// let counter = CounterReducer().lifted(
    ///     state: \AppState.counter,
    ///     extract: { if case .counter(let a) = $0 { a } else { nil } },
    ///     embed: AppAction.counter,
    ///     environment: { (env: AppEnvironment) in env.counter })
    /// ```
    public func lifted<ParentState, ParentAction, ParentEnvironment>(
        state path: WritableKeyPath<ParentState, State>,
        extract: @escaping (ParentAction) -> Action?,
        embed: @escaping @Sendable (RootAction) -> ParentAction,
        environment: @escaping (ParentEnvironment) -> Environment
    ) -> Reduce<ParentState, ParentAction, ParentEnvironment> {
        Reduce { parent, action, parentEnvironment in
            guard let child = extract(action) else { return nil }
            return self.reduce(&parent, at: path, action: child, embed: embed, environment: environment(parentEnvironment))
        }
    }

    /// The former spelling of ``lifted(state:extract:embed:environment:)``: `action:` was the extractor.
    @available(*, deprecated, renamed: "lifted(state:extract:embed:environment:)")
    public func lifted<ParentState, ParentAction, ParentEnvironment>(
        state path: WritableKeyPath<ParentState, State>,
        action extract: @escaping (ParentAction) -> Action?,
        embed: @escaping @Sendable (RootAction) -> ParentAction,
        environment: @escaping (ParentEnvironment) -> Environment
    ) -> Reduce<ParentState, ParentAction, ParentEnvironment> {
        lifted(state: path, extract: extract, embed: embed, environment: environment)
    }
}

/// Runs several reducers of the same state and actions in order, merging their effects.
///
/// ```swift
/// let app = CombineReducers(itemsReducer, tagsReducer, analyticsReducer)
/// ```
public struct CombineReducers<State, Action, Environment>: SwiduxReducer {
    /// Combined reducers' effects send their own actions.
    public typealias RootAction = Action
    let reducers: [any SwiduxReducer<State, Action, Action, Environment>]

    /// Combines `reducers`; they run in the order given.
    public init(_ reducers: any SwiduxReducer<State, Action, Action, Environment>...) {
        self.reducers = reducers
    }

    /// Runs every reducer in order on the same state and merges the effects they return.
    public func reduce(state: inout State, action: Action, environment: Environment) -> Effect<Action>? {
        var effects: [Effect<Action>] = []
        for reducer in reducers {
            if let effect = reducer.reduce(state: &state, action: action, environment: environment) {
                effects.append(effect)
            }
        }
        switch effects.count {
        case 0: return nil
        case 1: return effects[0]
        default: return .merge(effects)
        }
    }
}
