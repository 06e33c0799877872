import DequeModule
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
    let middleware: [any Middleware<State, Action>]
    let persistence: PersistenceMiddleware<State>?
    let undoStack: UndoMiddleware<State>?
    private let undoPolicy: (Action) -> UndoPolicy
    let logger: Logger
    private let onUnexpectedError: @MainActor (any Error) -> Void
    private var runner: EffectRunner<Action>!
    private let registrar = ObservationRegistrar()
    /// Which reads are observed and whom a change notifies (see ObservationTracker).
    let tracker = ObservationTracker<State>()
    private var undoStatus = 0
    private var stateStrategy: ChangeDetector.Strategy?
    /// Nesting of synchronous `.send` follow-ups (loop guard).
    private var depth = 0
    static var maxSynchronousDepth: Int { 256 }
    /// How many actions sent during dispatches (from hooks, observers) one outermost send
    /// may reduce before the rest is reported as a loop.
    static var maxQueuedActions: Int { 4096 }
    /// `true` while a reduce, its middleware hooks and its notifications run: an action sent
    /// then is queued, never reduced re-entrantly.
    private var isReducing = false
    private var queue = Deque<(action: Action, pending: PendingStart)>()
    /// Every task this store's effects started; cancelled when the last store on this box goes.
    nonisolated let taskRegistry = TaskRegistry()

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
            dispatch: { [weak self] action, parent in
                self?.dispatch(action, followUpOf: parent) ?? StoreTask(task: nil, scope: nil)
            },
            onError: { [weak self] error in self?.onUnexpectedError(error) },
            registry: taskRegistry
        )
        // Changes recorded while building the initial state are real (first-launch data):
        // hydration records none, so whatever is recorded is persisted.
        persistence?.afterReduce(state: &state)
        installPersistenceHook()
    }

    // MARK: Persistence hook (owned by the persistence work; keep it small and separate)

    /// Lets the persistence middleware take entities another writer deleted out of the
    /// state after a flush: not recorded (not written back), not an undo step (and gone
    /// from the undo snapshots), observers notified.
    private func installPersistenceHook() {
        persistence?.liveStateEditor = { [weak self] edit in
            guard let self else { return }
            edit(&self.state)
            self.undoStack?.editSnapshots(edit)
            self.notifyObservers()
        }
    }

    /// Effects live while any store that can receive their actions lives: a scoped store
    /// keeps this box alive, so they stop when the last store (root or scoped) is released.
    deinit {
        taskRegistry.cancelAll()
    }

    override var currentState: State {
        track(\State.self)
        return state
    }
    override var root: any RootControls { self }
    var registry: TaskRegistry { taskRegistry }
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
        dispatch(action, followUpOf: nil)
    }

    /// Reduces `action` now, or queues it when a reduce is under way (a middleware hook or an
    /// observer sending): queued actions are reduced in FIFO order once the outermost send
    /// has finished, each with its own undo step. `.send` follow-ups run right after their
    /// action's reduce (they are part of its dispatch) and their effects in a child of
    /// `parent`, so that the sender's ``StoreTask`` covers them.
    func dispatch(_ action: Action, followUpOf parent: EffectScope?) -> StoreTask {
        if isReducing {
            let pending = PendingStart()
            queue.append((action, pending))
            return pending.storeTask
        }
        depth += 1
        defer { depth -= 1 }
        guard depth <= Self.maxSynchronousDepth else {
            reportLoop(count: depth, action: action)
            return StoreTask(task: nil, scope: nil)
        }
        let task = reduce(action, followUpOf: parent, in: nil)
        if depth == 1 { drainQueue() }
        return task
    }

    /// Reduces the actions sent during the dispatch that just finished, and the ones they send.
    private func drainQueue() {
        var count = 0
        while let (action, pending) = queue.popFirst() {
            count += 1
            guard count <= Self.maxQueuedActions else {
                reportLoop(count: count, action: action)
                pending.resolve(nil)
                while let (_, dropped) = queue.popFirst() { dropped.resolve(nil) }
                return
            }
            pending.resolve(reduce(action, followUpOf: nil, in: pending.scope).task)
        }
    }

    private func reportLoop(count: Int, action: Action) {
        let error = DispatchLoopError(depth: count, action: String(describing: action))
        logger.warning("\(error)")
        onUnexpectedError(error)
    }

    /// One reduce with its middleware, persistence, undo step and notifications; then its effect.
    private func reduce(_ action: Action, followUpOf parent: EffectScope?, in scope: EffectScope?) -> StoreTask {
        isReducing = true
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
        for m in middleware {
            // No access to `state` is held while a hook runs: it may read the store (and see
            // the current state) or send (queued). A hook that mutates a large slice copies it.
            var next = state
            m.afterReduce(state: &next, action: action)
            state = next
        }
        persistence?.afterReduce(state: &state)
        if let snapshot, let before, let undoStack, ChangeDetector.hasChanged(before, to: state) {
            undoStack.willReduce(state: snapshot, coalescing: policy == .coalesce)
            undoStatusChanged()
        }
        notifyObservers()
        isReducing = false
        guard let effect else { return StoreTask(task: nil, scope: nil) }
        return runner.start(effect, followUpOf: parent, in: scope)
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
        let wasReducing = isReducing
        isReducing = true   // an observer sending while notified is queued
        var next = target
        persistence?.prepareRestore(&next, current: state)
        state = next
        persistence?.afterReduce(state: &state)
        undoStatusChanged()
        notifyObservers()
        isReducing = wasReducing
        if !wasReducing, depth == 0 {
            // As an outermost send: the queued actions' follow-ups nest below it.
            depth += 1
            drainQueue()
            depth -= 1
        }
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

/// Reported through `onUnexpectedError` (and logged) when actions are sent synchronously in a
/// loop: `.send` chains deeper than the store allows, or middleware/observers that keep
/// sending while actions are reduced. The rest of the chain is dropped.
public struct DispatchLoopError: Error, CustomStringConvertible, Sendable {
    public let depth: Int
    public let action: String
    public var description: String {
        "Swidux: possible dispatch loop: \(depth) synchronous sends in a row (last action: \(action)); dropping it"
    }
}
