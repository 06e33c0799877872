import Logging
import Observation

/// The strict MVI store: only **intents** come from outside; effects feed
/// **actions** back into a separate action reducer.
///
/// ```swift
/// let store = MVIStore<CounterState, CounterIntent, CounterAction>(
///     initial: CounterState(),
///     reduceIntent: { state, intent in reduce(state: &state, intent: intent, service: service) },
///     reduceAction: { state, action in reduce(state: &state, action: action) }
/// )
/// store.send(.incrementTapped)
/// ```
///
/// `state` is observable; observers are notified only when it changed. A state that is not
/// `Equatable` is compared structurally (fields, elements, optionals and enum cases down to
/// `Equatable` leaves, class instances by identity); only closures count as changed.
///
/// Errors an effect throws without a `catch` handler go to `onUnexpectedError`; by default
/// they are logged (swift-log, `error` level), as ``Store`` does: never lost silently.
@MainActor
public final class MVIStore<State, Intent, Action>: Observable {
    private var _state: State
    private let reduceIntent: (inout State, Intent) -> Effect<Action>?
    private let reduceAction: (inout State, Action) -> Effect<Action>?
    private let onUnexpectedError: @MainActor (any Error) -> Void
    private var runner: EffectRunner<Action>!
    private nonisolated let registry: TaskRegistry
    private let registrar = ObservationRegistrar()
    private var tracked: TrackedValue<State>?
    /// Nesting of synchronous `.send` follow-ups (loop guard, as in ``Store``).
    private var depth = 0
    private let logger: Logger

    /// The current state (observable).
    public private(set) var state: State {
        get {
            if tracked == nil { tracked = TrackedValue(root: _state, read: { $0 }) }
            registrar.access(self, keyPath: \.state)
            ObservedRun.noteRead(self, \MVIStore.state)
            return _state
        }
        set { _state = newValue }
    }

    /// The strict MVI initializer: the action reducer completes async transitions.
    ///
    /// - Parameters:
    ///   - initial: the state the store starts with.
    ///   - reduceIntent: handles user input; may return an effect that produces actions.
    ///   - reduceAction: applies an effect's result to the state.
    ///   - logger: where unhandled effect errors and dispatch loops are logged.
    ///   - onUnexpectedError: receives errors thrown by effects that have no `catch`
    ///     handler (default: logged to `logger`). `CancellationError` never reaches it.
    public convenience init(
        initial: State,
        reduceIntent: @escaping (inout State, Intent) -> Effect<Action>?,
        reduceAction: @escaping (inout State, Action) -> Void,
        logger: Logger = Logger(label: "swidux.mvi-store"),
        onUnexpectedError: (@MainActor (any Error) -> Void)? = nil
    ) {
        self.init(
            initial: initial,
            reduceIntent: reduceIntent,
            reduceAction: { (state: inout State, action: Action) -> Effect<Action>? in
                reduceAction(&state, action)
                return nil
            },
            logger: logger,
            onUnexpectedError: onUnexpectedError
        )
    }

    /// An action reducer that may itself return a follow-up effect.
    ///
    /// - Parameters:
    ///   - initial: the state the store starts with.
    ///   - reduceIntent: handles user input; may return an effect that produces actions.
    ///   - reduceAction: applies an effect's result to the state, and may return a follow-up effect.
    ///   - logger: where unhandled effect errors and dispatch loops are logged.
    ///   - onUnexpectedError: receives errors thrown by effects that have no `catch`
    ///     handler (default: logged to `logger`). `CancellationError` never reaches it.
    public init(
        initial: State,
        reduceIntent: @escaping (inout State, Intent) -> Effect<Action>?,
        reduceAction: @escaping (inout State, Action) -> Effect<Action>?,
        logger: Logger = Logger(label: "swidux.mvi-store"),
        onUnexpectedError: (@MainActor (any Error) -> Void)? = nil
    ) {
        self._state = initial
        self.reduceIntent = reduceIntent
        self.reduceAction = reduceAction
        self.logger = logger
        self.onUnexpectedError = onUnexpectedError ?? { error in
            logger.error("Swidux: unhandled effect error: \(error)")
        }
        self.registry = TaskRegistry()
        self.runner = EffectRunner(
            dispatch: { [weak self] action, parent in
                self?.receive(action, followUpOf: parent) ?? StoreTask(task: nil, scope: nil)
            },
            onError: { [weak self] error in self?.onUnexpectedError(error) },
            registry: registry
        )
    }

    deinit { registry.cancelAll() }

    /// Sends a user intent. Returns a handle on the effects it started (and on the effects of
    /// the actions they send, recursively, see ``StoreTask``).
    ///
    /// Synchronous `.send` chains deeper than the store allows (a loop) are cut: a
    /// ``DispatchLoopError`` goes to `onUnexpectedError` and is logged.
    @discardableResult
    public func send(_ intent: Intent) -> StoreTask {
        let effect = reduceIntent(&_state, intent)
        notifyIfChanged()
        guard let effect else { return StoreTask(task: nil, scope: nil) }
        return runner.start(effect)
    }

    /// Number of effect tasks still running.
    public var runningEffectCount: Int { runner.runningCount }

    private func receive(_ action: Action, followUpOf parent: EffectScope?) -> StoreTask {
        depth += 1
        defer { depth -= 1 }
        guard depth <= RootBox<State, Action>.maxSynchronousDepth else {
            let error = DispatchLoopError(depth: depth, action: String(describing: action))
            logger.warning("\(error)")
            onUnexpectedError(error)
            return StoreTask(task: nil, scope: nil)
        }
        let effect = reduceAction(&_state, action)
        notifyIfChanged()
        guard let effect else { return StoreTask(task: nil, scope: nil) }
        return runner.start(effect, followUpOf: parent)
    }

    private func notifyIfChanged() {
        guard var tracked, tracked.update(from: _state) else { return }
        self.tracked = tracked
        ObservedRun.noteChange(self, \MVIStore.state)
        registrar.willSet(self, keyPath: \.state)
        registrar.didSet(self, keyPath: \.state)
    }
}
