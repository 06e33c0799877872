import DequeModule
import Logging
import Observation

/// The storage behind a ``Store``: the root box (``RootBox``) owns state, reducer,
/// middleware and effects; a scoped box (``ScopedBox``) reads and sends through its parent.
/// Both are final classes: a call through `any StoreBox` is one witness-table call, as a
/// class method's was.
@MainActor
protocol StoreBox<State, Action>: AnyObject, DerivedTracking {
    associatedtype Action
    /// The state, read as a whole (observes every slice).
    var currentState: State { get }
    /// The state, without registering a read (the caller tracks what it reads).
    var untrackedState: State { get }
    /// Reads the value at `keyPath` and observes it.
    func read<Value>(_ keyPath: KeyPath<State, Value>) -> Value
    /// Observes the value at `keyPath` without reading it.
    func track<Value>(_ keyPath: KeyPath<State, Value>)
    /// An entity store slice, observed row by row.
    func observedEntities<Entity>(_ keyPath: KeyPath<State, EntityStore<Entity>>) -> ObservedEntities<Entity>
    func dispatch(_ action: Action) -> StoreTask
    var root: any RootControls { get }
    /// Reads the value at `keyPath` (observed) through the root box, held weakly: `nil`
    /// once the root store is gone. A scoped store's read does not keep its store alive.
    func weakRead<Value>(_ keyPath: KeyPath<State, Value>) -> @MainActor () -> Value?
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
final class RootBox<State, Action>: StoreBox, RootControls, Observable {
    /// The state, behind a pointer: a stored property of a class gets a run-time exclusivity
    /// check on every access (several per dispatch), an access through a pointer does not,
    /// and the tracker compares slices through it without copying the state.
    nonisolated(unsafe) private let statePointer: UnsafeMutablePointer<State>
    private(set) var state: State {
        _read { yield statePointer.pointee }
        _modify { yield &statePointer.pointee }
    }
    private let reducer: (inout State, Action) -> Effect<Action>?
    let middleware: [any Middleware<State, Action>]
    /// `!middleware.isEmpty`, decided once (see `reduce`).
    private let hasMiddleware: Bool
    private let hooks: MiddlewareHooks<State, Action>
    let persistence: PersistenceMiddleware<State>?
    let undoStack: UndoMiddleware<State>?
    private let undoPolicy: (Action) -> UndoPolicy
    /// The default policy, for an action type that is not a class and does not conform to
    /// ``UndoableAction``: every action records, once a first action showed that the type is
    /// not an existential (whose values' types might conform).
    private let mayRecordEveryAction: Bool
    /// Set when that was shown: `reduce` then calls no policy closure.
    @exclusivity(unchecked) private var recordsEveryAction = false
    let logger: Logger
    private let onUnexpectedError: @MainActor (any Error) -> Void
    private var runner: EffectRunner<Action>!
    private let registrar = ObservationRegistrar()
    /// Which reads are observed and whom a change notifies (see ObservationTracker).
    let tracker = ObservationTracker<State>()
    private var undoStatus = 0
    /// How the state splits into entity stores and fields for undo (built at first use).
    private var undoLayout: UndoLayout<State>?
    /// The same, called on every step without a retain (`undoLayout` holds it).
    private var unretainedUndoLayout: Unmanaged<UndoLayout<State>>?
    /// `true` while an undo step is being recorded (a reduce, or an undo/redo applied).
    @exclusivity(unchecked) private var isRecordingUndo = false
    /// Undo/redo requested while a step was being recorded or a reduce ran (from a middleware
    /// hook, whose copy of the state would overwrite it, or an observer): run after it.
    @exclusivity(unchecked) private var deferredHistoryMoves: [Bool] = []
    /// Where the action being dispatched came from (told to middleware).
    @exclusivity(unchecked) private var dispatchSource = ActionSource.ui
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
    /// `queue` is not empty (checked on every send without touching the generic deque).
    private var hasQueued = false
    /// No undo and no middleware: a reduce has nothing to snapshot or hook.
    private let isPlain: Bool
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
        self.statePointer = .allocate(capacity: 1)
        self.statePointer.initialize(to: initialState)
        self.reducer = { state, action in reducer.reduce(state: &state, action: action, environment: environment) }
        self.middleware = middleware
        self.hasMiddleware = !middleware.isEmpty
        self.hooks = MiddlewareHooks(middleware)
        self.isPlain = undo == nil && middleware.isEmpty
        self.persistence = persistence
        self.undoStack = undo
        self.undoPolicy = undoPolicy ?? Self.defaultUndoPolicy()
        self.mayRecordEveryAction = undo != nil && undoPolicy == nil
            && !(Action.self is any UndoableAction.Type) && !(Action.self is AnyObject.Type)
        self.logger = logger
        let log = logger
        self.onUnexpectedError = onUnexpectedError ?? { error in
            log.error("Swidux: unhandled effect error: \(error)")
        }
        tracker.currentState = { [weak self] in self?.state }
        self.runner = EffectRunner(
            dispatch: { [weak self] action, parent in
                self?.dispatch(action, followUpOf: parent, from: .effect) ?? StoreTask(task: nil, scope: nil)
            },
            onError: { [weak self] error in self?.onUnexpectedError(error) },
            registry: taskRegistry
        )
        // Changes recorded while building the initial state are real (first-launch data):
        // hydration records none, so whatever is recorded is persisted.
        persistence?.afterReduce(state: &state)
        installPersistenceHook()
        undo?.historyDidChange = { [weak self] in self?.undoStatusChanged() }
    }

    // MARK: Persistence hook (owned by the persistence work; keep it small and separate)

    /// Lets the persistence middleware take entities another writer deleted out of the
    /// state after a flush: not recorded (not written back), not an undo step (and gone
    /// from the undo history), observers notified.
    private func installPersistenceHook() {
        persistence?.liveStateEditor = { [weak self] edit in
            self?.editUnrecorded(edit)
        }
    }

    /// Applies `edit` to the live state as neither an undo step nor a change to persist (the
    /// edit must not record changes: `removeUnrecorded`), then notifies observers. Entities
    /// it removes leave the undo history too, so that undo does not bring them back.
    func editUnrecorded(_ edit: (inout State) -> Void) {
        guard let undoStack, !isRecordingUndo else {
            edit(&state)
            notifyObservers()
            return
        }
        let layout = currentUndoLayout()
        isRecordingUndo = true
        // Only the ids it removes matter: nothing holds the storage (an edit path that does
        // not capture, e.g. external changes, must not copy it).
        let recording = layout.begin(statePointer, retaining: false)
        edit(&state)
        let patch = layout.end(recording, statePointer)
        isRecordingUndo = false
        let removed = layout.removedIDs(in: patch)
        if !removed.isEmpty {
            undoStack.editPatches { layout.forget(removed, in: &$0) }
            undoStatusChanged()   // a step left empty was dropped: `canUndo` may be false now
        }
        notifyObservers()
    }

    /// Effects live while any store that can receive their actions lives: a scoped store
    /// keeps this box alive, so they stop when the last store (root or scoped) is released.
    deinit {
        taskRegistry.storeReleased()
        statePointer.deinitialize(count: 1)
        statePointer.deallocate()
    }

    var currentState: State {
        track(\State.self)
        return state
    }
    var root: any RootControls { self }
    var untrackedState: State { state }
    var registry: TaskRegistry { taskRegistry }
    var runningEffectCount: Int { runner.runningCount }

    func read<Value>(_ keyPath: KeyPath<State, Value>) -> Value {
        tracker.read(keyPath, in: statePointer)
    }

    func weakRead<Value>(_ keyPath: KeyPath<State, Value>) -> @MainActor () -> Value? {
        { [weak self] in self?.read(keyPath) }
    }

    func track<Value>(_ keyPath: KeyPath<State, Value>) {
        tracker.track(keyPath, in: state)
    }

    func observedEntities<Entity>(_ keyPath: KeyPath<State, EntityStore<Entity>>) -> ObservedEntities<Entity> {
        ObservedEntities(state[keyPath: keyPath], observer: tracker.entitySlice(keyPath, in: state))
    }

    func trackUndoStatus() {
        registrar.access(self, keyPath: \.undoStatus)
        ObservedRun.noteRead(self, \RootBox.undoStatus)
    }

    func dispatch(_ action: Action) -> StoreTask {
        dispatch(action, followUpOf: nil, from: .ui)
    }

    /// `dispatch(_:followUpOf:)`, with middleware told where the action came from.
    private func dispatch(_ action: Action, followUpOf parent: EffectScope?, from source: ActionSource) -> StoreTask {
        let outer = dispatchSource
        dispatchSource = source
        defer { dispatchSource = outer }
        return dispatch(action, followUpOf: parent)
    }

    /// Reduces `action` now, or queues it when a reduce is under way (a middleware hook or an
    /// observer sending): queued actions are reduced in FIFO order once the outermost send
    /// has finished, each with its own undo step. `.send` follow-ups run right after their
    /// action's reduce (they are part of its dispatch) and their effects in a child of
    /// `parent`, so that the sender's ``StoreTask`` covers them.
    func dispatch(_ action: Action, followUpOf parent: EffectScope?) -> StoreTask {
        if isReducing { return enqueue(action) }
        depth += 1
        defer { depth -= 1 }
        guard depth <= Self.maxSynchronousDepth else {
            reportLoop(count: depth, action: action)
            return StoreTask(task: nil, scope: nil)
        }
        let task = isPlain ? reducePlain(action, followUpOf: parent, in: nil) : reduce(action, followUpOf: parent, in: nil)
        if depth == 1, hasQueued { drainQueue() }
        return task
    }

    /// Queues an action sent while a reduce is under way (apart: the queue's generic element
    /// type would have its metadata looked up on every send).
    @inline(never)
    private func enqueue(_ action: Action) -> StoreTask {
        let pending = PendingStart()
        queue.append((action, pending))
        hasQueued = true
        return pending.storeTask
    }

    /// Reduces the actions sent during the dispatch that just finished, and the ones they send.
    private func drainQueue() {
        defer { hasQueued = false }   // every path below empties the queue
        var count = 0
        while let (action, pending) = queue.popFirst() {
            count += 1
            guard count <= Self.maxQueuedActions else {
                reportLoop(count: count, action: action)
                pending.resolve(nil)
                while let (_, dropped) = queue.popFirst() { dropped.resolve(nil) }
                return
            }
            dispatchSource = .ui   // sent by a hook or an observer
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
        if isPlain { return reducePlain(action, followUpOf: parent, in: scope) }
        isReducing = true
        let policy: UndoPolicy
        if undoStack == nil || isRecordingUndo {
            policy = .skip
        } else if recordsEveryAction {
            policy = .record
        } else {
            policy = undoPolicy(action)
            if mayRecordEveryAction, type(of: action) == Action.self { recordsEveryAction = true }
        }
        var recording: UndoLayout<State>.Recording?
        if policy != .skip {
            isRecordingUndo = true
            if unretainedUndoLayout == nil { _ = currentUndoLayout() }
            recording = undoLayoutBegin(unretainedUndoLayout.unsafelyUnwrapped, statePointer)
        }
        if hasMiddleware { hooks.beforeReduce(state, action, dispatchSource) }
        let effect = reducer(&state, action)
        if hasMiddleware { hooks.afterReduce(statePointer, action) }
        if let recording, let layout = unretainedUndoLayout {
            let patch = undoLayoutEnd(layout, recording, statePointer)
            isRecordingUndo = false
            if !patch.isEmpty {
                undoStack.unsafelyUnwrapped.record(consume patch, coalescing: policy == .coalesce, layout: layout)
                // A recorded step leaves canUndo true and canRedo false: nothing to notify
                // when that is what observers last saw.
                if !notifiedUndoStatus.canUndo || notifiedUndoStatus.canRedo { undoStatusChanged() }
            }
        }
        persistence?.afterReduce(state: &state)
        notifyObservers()
        isReducing = false
        // Checked here: the call alone costs more than the check, on every send.
        if !deferredHistoryMoves.isEmpty { runDeferredHistoryMoves() }
        guard let effect else { return StoreTask(task: nil, scope: nil) }
        return runner.start(effect, followUpOf: parent, in: scope)
    }

    /// `reduce` without undo or middleware (no snapshot: its optional of the generic state
    /// would cost a run-time metadata lookup on every send).
    private func reducePlain(_ action: Action, followUpOf parent: EffectScope?, in scope: EffectScope?) -> StoreTask {
        isReducing = true
        let effect = reducer(&state, action)
        persistence?.afterReduce(state: &state)
        notifyObservers()
        isReducing = false
        guard let effect else { return StoreTask(task: nil, scope: nil) }
        return runner.start(effect, followUpOf: parent, in: scope)
    }

    private func notifyObservers() {
        guard tracker.isTracking else { return }
        tracker.collect(statePointer)
        tracker.notifyCollected()
    }

    /// `canUndo` and `canRedo` as last notified.
    private var notifiedUndoStatus = (canUndo: false, canRedo: false)

    /// Notifies `canUndo`/`canRedo` observers if either changed.
    private func undoStatusChanged() {
        let status = (canUndo: canUndo, canRedo: canRedo)
        guard status != notifiedUndoStatus else { return }
        notifiedUndoStatus = status
        ObservedRun.noteChange(self, \RootBox.undoStatus)
        registrar.willSet(self, keyPath: \.undoStatus)
        undoStatus &+= 1
        registrar.didSet(self, keyPath: \.undoStatus)
    }

    var canUndo: Bool { undoStack?.canUndo ?? false }
    var canRedo: Bool { undoStack?.canRedo ?? false }

    func undo() { moveInHistory(undo: true) }

    func redo() { moveInHistory(undo: false) }

    /// The action's ``UndoableAction/undoPolicy``, else `.record`. Decided from the action
    /// type where the type decides it (a struct or enum conforms or not), so that a send pays
    /// no dynamic cast (a protocol conformance lookup of ~1,000 instructions); a class or an
    /// existential action type is cast per action.
    private static func defaultUndoPolicy() -> (Action) -> UndoPolicy {
        if let undoable = Action.self as? any UndoableAction.Type {
            func typed<A: UndoableAction>(_: A.Type) -> (Action) -> UndoPolicy {
                // `A` is `Action` itself: the value is read as what it is.
                { action in withUnsafePointer(to: action) { $0.withMemoryRebound(to: A.self, capacity: 1) { $0.pointee.undoPolicy } } }
            }
            return typed(undoable)
        }
        let dynamic: (Action) -> UndoPolicy = { ($0 as? any UndoableAction)?.undoPolicy ?? .record }
        if Action.self is AnyObject.Type { return dynamic }
        // A struct or enum that does not conform never will; an existential type (`any P`)
        // holds values of other types, which may: `type(of:)` tells them apart at the first send.
        let decided = PolicyDecision()
        return { action in
            switch decided.isFixed {
            case true?: return .record
            case false?: return dynamic(action)
            case nil:
                decided.isFixed = type(of: action) == Action.self
                return dynamic(action)
            }
        }
    }

    /// The state's undo layout, made from the current state at first use. (No state
    /// parameter: passing the state copies it, which retains every slice it holds, per send.)
    private func currentUndoLayout() -> UndoLayout<State> {
        if let undoLayout { return undoLayout }
        let layout = UndoLayout(recording: recordedUndoPaths())
        undoLayout = layout
        unretainedUndoLayout = Unmanaged.passUnretained(layout)
        return layout
    }

    /// The parts of the state an undo step records: the ones the app named; with none named,
    /// the entity stores the store persists (its writers' key paths), so that undo never puts
    /// back UI state nor a row another writer changed since; the whole state (snapshot mode)
    /// only for a store without persistence.
    private func recordedUndoPaths() -> [UndoRecordedPath<State>] {
        let named = undoStack?.recordedPaths ?? []
        guard named.isEmpty, let persistence else { return named }
        var seen = Set<AnyKeyPath>()
        return persistence.writers.compactMap { writer in
            seen.insert(writer.undoPath.keyPath).inserted ? writer.undoPath : nil
        }
    }

    private func runDeferredHistoryMoves() {
        while !isRecordingUndo, !deferredHistoryMoves.isEmpty {
            moveInHistory(undo: deferredHistoryMoves.removeFirst())
        }
    }

    /// Applies the last undo (or redo) step to the current state and pushes its inverse on
    /// the other stack. Entity stores record what it changes, so that persistence writes
    /// exactly the entities it touched.
    private func moveInHistory(undo: Bool) {
        guard let undoStack else { return }
        if isRecordingUndo || isReducing {
            deferredHistoryMoves.append(undo)
            return
        }
        guard let patch = undo ? undoStack.popUndo() : undoStack.popRedo() else { return }
        let wasReducing = isReducing
        isReducing = true   // an observer sending while notified is queued
        isRecordingUndo = true
        let persistence = self.persistence
        let inverse = currentUndoLayout().apply(patch, to: &state) { next, current in
            persistence?.prepareRestore(&next, current: current)
        }
        isRecordingUndo = false
        if inverse.isEmpty {
            // Nothing changed (everything the step changed was changed back since): no
            // step to redo (or undo) that would do nothing.
        } else if undo {
            undoStack.pushRedo(inverse)
        } else {
            undoStack.pushUndo(inverse, layout: Unmanaged.passUnretained(currentUndoLayout()))
        }
        persistence?.afterReduce(state: &state)
        if hasMiddleware { for m in middleware { m.didMoveInHistory(undo: undo, state: state) } }
        undoStatusChanged()
        notifyObservers()
        isReducing = wasReducing
        if !wasReducing, depth == 0 {
            // As an outermost send: the queued actions' follow-ups nest below it.
            depth += 1
            drainQueue()
            depth -= 1
        }
        if !isReducing { runDeferredHistoryMoves() }
    }

    func flush() async throws {
        try await persistence?.flush()
    }
}

@MainActor
final class ScopedBox<Parent: StoreBox, State, Action>: StoreBox {
    let parent: Parent
    let path: KeyPath<Parent.State, State>
    let embed: (Action) -> Parent.Action

    init(parent: Parent, path: KeyPath<Parent.State, State>, embed: @escaping (Action) -> Parent.Action) {
        self.parent = parent
        self.path = path
        self.embed = embed
    }

    var currentState: State { parent.read(path) }
    var untrackedState: State { parent.untrackedState[keyPath: path] }
    func read<Value>(_ keyPath: KeyPath<State, Value>) -> Value { parent.read(path.appending(path: keyPath)) }
    func weakRead<Value>(_ keyPath: KeyPath<State, Value>) -> @MainActor () -> Value? {
        parent.weakRead(path.appending(path: keyPath))
    }
    func track<Value>(_ keyPath: KeyPath<State, Value>) { parent.track(path.appending(path: keyPath)) }
    func observedEntities<Entity>(_ keyPath: KeyPath<State, EntityStore<Entity>>) -> ObservedEntities<Entity> {
        parent.observedEntities(path.appending(path: keyPath))
    }
    func dispatch(_ action: Action) -> StoreTask { parent.dispatch(embed(action)) }
    var root: any RootControls { parent.root }
}

/// Reported through `onUnexpectedError` (and logged) when actions are sent synchronously in a
/// loop: `.send` chains deeper than the store allows, or middleware/observers that keep
/// sending while actions are reduced. The rest of the chain is dropped.
public struct DispatchLoopError: Error, CustomStringConvertible, Sendable {
    /// How many synchronous sends (or queued actions) were counted when the loop was cut.
    public let depth: Int
    /// The action that was dropped, as `String(describing:)` writes it.
    public let action: String
    /// A one-line explanation for logs.
    public var description: String {
        "Swidux: possible dispatch loop: \(depth) synchronous sends in a row (last action: \(action)); dropping it"
    }
}

/// Whether an action type's undo policy is fixed (see `RootBox.defaultUndoPolicy`).
private final class PolicyDecision {
    var isFixed: Bool?
}
