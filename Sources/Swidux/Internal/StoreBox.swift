import Logging
import Observation

/// The storage behind a ``Store``: the root box owns state, reducer, middleware and effects;
/// a scoped box reads and sends through its parent.
@MainActor
class StoreBox<State, Action> {
    var currentState: State { fatalError("abstract") }
    func read<Value>(_ keyPath: KeyPath<State, Value>) -> Value { fatalError("abstract") }
    func track<Value>(_ keyPath: KeyPath<State, Value>) { fatalError("abstract") }
    func observedEntities<Entity>(_ keyPath: KeyPath<State, EntityStore<Entity>>) -> ObservedEntities<Entity> { fatalError("abstract") }
    func dispatch(_ action: Action) -> StoreTask { fatalError("abstract") }
    var root: any RootControls { fatalError("abstract") }
}

/// What every store (root or scoped) forwards to its root.
@MainActor
protocol RootControls: AnyObject {
    var canUndo: Bool { get }
    var canRedo: Bool { get }
    func undo()
    func redo()
    func flush() async throws
    var runningEffectCount: Int { get }
    func trackUndoStatus()
    var registry: TaskRegistry { get }
}

@MainActor
final class RootBox<State, Action>: StoreBox<State, Action>, RootControls, Observable {
    private(set) var state: State
    private let reducer: (inout State, Action) -> Effect<Action>?
    private let middleware: [any Middleware<State, Action>]
    let persistence: PersistenceMiddleware<State>?
    let undoStack: UndoMiddleware<State>?
    private let undoPolicy: (Action) -> UndoPolicy
    private let logger: Logger
    private let onUnexpectedError: @MainActor (any Error) -> Void
    private var runner: EffectRunner<Action>!
    private let registrar = ObservationRegistrar()
    /// Which reads are observed and whom a change notifies (see ObservationTracker).
    let tracker = ObservationTracker<State>()
    private var undoStatus = 0
    private var stateStrategy: ChangeDetector.Strategy?
    private var depth = 0
    static var maxSynchronousDepth: Int { 256 }

    init<R: SwiduxReducer>(
        initialState: State, reducer: R, environment: R.Environment,
        middleware: [any Middleware<State, Action>],
        persistence: PersistenceMiddleware<State>?,
        undo: UndoMiddleware<State>?,
        undoPolicy: ((Action) -> UndoPolicy)?,
        logger: Logger,
        onUnexpectedError: (@MainActor (any Error) -> Void)?
    ) where R.State == State, R.Action == Action, R.RootAction == Action {
        self.state = initialState
        self.reducer = { state, action in reducer.reduce(state: &state, action: action, environment: environment) }
        self.middleware = middleware
        self.persistence = persistence
        self.undoStack = undo
        self.undoPolicy = undoPolicy ?? { ($0 as? any UndoableAction)?.undoPolicy ?? .record }
        self.logger = logger
        let log = logger
        self.onUnexpectedError = onUnexpectedError ?? { error in
            log.error("Swidux: unhandled effect error: \(error)")
        }
        super.init()
        tracker.currentState = { [weak self] in self?.state }
        self.runner = EffectRunner(
            dispatch: { [weak self] action in _ = self?.dispatch(action) },
            onError: { [weak self] error in self?.onUnexpectedError(error) }
        )
        // Changes recorded while building the initial state are real (first-launch data):
        // hydration records none, so whatever is recorded is persisted.
        persistence?.afterReduce(state: &state)
    }

    override var currentState: State {
        track(\State.self)
        return state
    }
    override var root: any RootControls { self }
    var registry: TaskRegistry { runner.registry }
    var runningEffectCount: Int { runner.runningCount }

    override func read<Value>(_ keyPath: KeyPath<State, Value>) -> Value {
        track(keyPath)
        return state[keyPath: keyPath]
    }

    override func track<Value>(_ keyPath: KeyPath<State, Value>) {
        tracker.track(keyPath, in: state)
    }

    override func observedEntities<Entity>(_ keyPath: KeyPath<State, EntityStore<Entity>>) -> ObservedEntities<Entity> {
        ObservedEntities(state[keyPath: keyPath], observer: tracker.entitySlice(keyPath, in: state))
    }

    func trackUndoStatus() { registrar.access(self, keyPath: \.undoStatus) }

    override func dispatch(_ action: Action) -> StoreTask {
        depth += 1
        defer { depth -= 1 }
        guard depth <= Self.maxSynchronousDepth else {
            let error = DispatchLoopError(depth: depth, action: String(describing: action))
            logger.warning("\(error)")
            onUnexpectedError(error)
            return StoreTask(task: nil, scope: nil)
        }
        let policy: UndoPolicy = undoStack == nil ? .skip : undoPolicy(action)
        var snapshot: State?
        var before: ChangeDetector.Snapshot?
        if policy != .skip {
            snapshot = state
            if stateStrategy == nil { stateStrategy = ChangeDetector.strategy(for: state) }
            before = ChangeDetector.snapshot(state, strategy: stateStrategy!)
        }
        for m in middleware { m.beforeReduce(state: state, action: action) }
        let effect = reducer(&state, action)
        for m in middleware { m.afterReduce(state: &state, action: action) }
        persistence?.afterReduce(state: &state)
        if let snapshot, let before, let undoStack, ChangeDetector.hasChanged(before, to: state) {
            undoStack.willReduce(state: snapshot, coalescing: policy == .coalesce)
            undoStatusChanged()
        }
        notifyObservers()
        guard let effect else { return StoreTask(task: nil, scope: nil) }
        return runner.start(effect)
    }

    private func notifyObservers() {
        guard tracker.isTracking else { return }
        tracker.notify(tracker.collect(&state))
    }

    private func undoStatusChanged() {
        registrar.willSet(self, keyPath: \.undoStatus)
        undoStatus &+= 1
        registrar.didSet(self, keyPath: \.undoStatus)
    }

    var canUndo: Bool { undoStack?.canUndo ?? false }
    var canRedo: Bool { undoStack?.canRedo ?? false }

    func undo() {
        guard let undoStack, let previous = undoStack.undo(current: state) else { return }
        apply(previous)
    }

    func redo() {
        guard let undoStack, let next = undoStack.redo(current: state) else { return }
        apply(next)
    }

    /// Replaces the state by an undo/redo snapshot; persisted entity stores are restored
    /// with `restore(from:)` so that exactly the differences are written.
    private func apply(_ target: State) {
        var next = target
        persistence?.prepareRestore(&next, current: state)
        state = next
        persistence?.afterReduce(state: &state)
        undoStatusChanged()
        notifyObservers()
    }

    func flush() async throws {
        try await persistence?.flush()
    }
}

@MainActor
final class ScopedBox<ParentState, ParentAction, State, Action>: StoreBox<State, Action> {
    let parent: StoreBox<ParentState, ParentAction>
    let path: KeyPath<ParentState, State>
    let embed: (Action) -> ParentAction

    init(parent: StoreBox<ParentState, ParentAction>, path: KeyPath<ParentState, State>, embed: @escaping (Action) -> ParentAction) {
        self.parent = parent
        self.path = path
        self.embed = embed
    }

    override var currentState: State { parent.read(path) }
    override func read<Value>(_ keyPath: KeyPath<State, Value>) -> Value { parent.read(path.appending(path: keyPath)) }
    override func track<Value>(_ keyPath: KeyPath<State, Value>) { parent.track(path.appending(path: keyPath)) }
    override func observedEntities<Entity>(_ keyPath: KeyPath<State, EntityStore<Entity>>) -> ObservedEntities<Entity> {
        parent.observedEntities(path.appending(path: keyPath))
    }
    override func dispatch(_ action: Action) -> StoreTask { parent.dispatch(embed(action)) }
    override var root: any RootControls { parent.root }
}

/// Reported through `onUnexpectedError` when effects send actions synchronously in a loop
/// (`.send` chains deeper than the store allows); the rest of the chain is dropped.
public struct DispatchLoopError: Error, CustomStringConvertible, Sendable {
    public let depth: Int
    public let action: String
    public var description: String {
        "Swidux: possible dispatch loop: \(depth) nested synchronous sends (last action: \(action)); dropping it"
    }
}
