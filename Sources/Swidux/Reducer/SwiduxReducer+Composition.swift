extension SwiduxReducer {
    /// Runs this reducer on a slice of a parent state and lifts its effect into the parent's
    /// actions (seed 000 "Composed Reducers"), in one call.
    ///
    /// The child's cancel ids are namespaced by `path` (see ``Effect/scoped(_:)``): the same
    /// feature reduced at two paths keeps separate in-flight effects.
    ///
    /// ```swift
    /// case .counter(let action):
    ///     return CounterReducer().reduce(
    ///         &state, at: \.counter, action: action,
    ///         environment: environment.counter, embed: AppAction.counter)
    /// ```
    public func reduce<ParentState, ParentAction>(
        _ parent: inout ParentState,
        at path: WritableKeyPath<ParentState, State>,
        action: Action,
        environment: Environment,
        embed: @escaping @Sendable (RootAction) -> ParentAction
    ) -> Effect<ParentAction>? {
        reduce(state: &parent[keyPath: path], action: action, environment: environment)?
            .map(embed)
            .scoped(byPath: path)
    }

    /// This reducer as a reducer of a parent state: it runs on `path`, takes the parent's
    /// actions that `extract` recognizes, and lifts its effects with `embed`. Its cancel ids
    /// are namespaced by `path` (see ``Effect/scoped(_:)``), so a reusable feature composes
    /// twice; pair it with `store.scope(state: path, action: embed)` in the view.
    ///
    /// ```swift
    /// let counter = CounterReducer().lifted(
    ///     state: \AppState.counter,
    ///     action: { if case .counter(let a) = $0 { a } else { nil } },
    ///     embed: AppAction.counter,
    ///     environment: { (env: AppEnvironment) in env.counter })
    /// ```
    public func lifted<ParentState, ParentAction, ParentEnvironment>(
        state path: WritableKeyPath<ParentState, State>,
        action extract: @escaping (ParentAction) -> Action?,
        embed: @escaping @Sendable (RootAction) -> ParentAction,
        environment: @escaping (ParentEnvironment) -> Environment
    ) -> Reduce<ParentState, ParentAction, ParentEnvironment> {
        Reduce { parent, action, parentEnvironment in
            guard let child = extract(action) else { return nil }
            return self.reduce(&parent, at: path, action: child, environment: environment(parentEnvironment), embed: embed)
        }
    }
}

/// Runs several reducers of the same state and actions in order, merging their effects.
///
/// ```swift
/// let app = CombineReducers(itemsReducer, tagsReducer, analyticsReducer)
/// ```
public struct CombineReducers<State, Action, Environment>: SwiduxReducer {
    public typealias RootAction = Action
    let reducers: [any SwiduxReducer<State, Action, Action, Environment>]

    public init(_ reducers: any SwiduxReducer<State, Action, Action, Environment>...) {
        self.reducers = reducers
    }

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
