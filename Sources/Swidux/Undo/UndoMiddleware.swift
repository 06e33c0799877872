/// Undo and redo: pass one to a ``Store`` as `undo:` and call ``Store/undo()`` /
/// ``Store/redo()``. (A hand-written store, which runs its reducer itself, uses
/// ``UndoSnapshotStack``.)
///
/// **With a ``Store``** (the usual way), name the parts of the state that are undoable,
/// with `recording:` — the key paths the app already names for its writers:
///
/// ```swift
/// let store = Store(initialState: AppState(), reducer: AppReducer(), environment: .live,
///                   undo: UndoMiddleware(maxDepth: 100, recording: \.items, \.tags, \.title))
/// store.send(.rename(id, "Milk"))
/// store.undo()   // the previous title of that one entity, persisted
/// ```
///
/// History is then kept **by patches**: a step holds, for each named ``EntityStore`` the
/// action changed, the previous values of exactly the ids it changed (and its insertions,
/// deletions and previous order), plus the previous value of each other named part it
/// changed. Memory and time are proportional to what the action changed, not to the size of
/// the state. Undoing applies the step's inverse to the **current** state, field by field:
///
/// - an entity the step updated gets back the previous values of the fields the step
///   changed; its other fields keep what a non-undoable action (``UndoPolicy/skip``),
///   external changes or sync wrote since (when the entity is `Codable`, as persisted
///   entities are; a non-`Codable` entity changed since the step is restored whole);
/// - a named part that is not an entity store gets its previous value back only if the step
///   changed it;
/// - parts of the state that are **not named are never touched** by undo or redo: UI state
///   (selection, navigation, filters) stays where the user put it.
///
/// Redo mirrors it. What undo and redo change is persisted through the normal path: exactly
/// the entities the step touched. The store records a step only for actions whose net
/// effect changed something (deleting and re-inserting the same entity, or sorting back to
/// the same order, records none) and honours ``UndoPolicy`` (`.coalesce` merges consecutive
/// steps, first value wins; `.skip` records nothing). A step keeps, per updated entity, its
/// value before and after the step (two entities per update; their storage is shared with
/// the state's strings and arrays until those change).
///
/// Named key paths may be nested (`\.data.items`); each part is named once (naming a part
/// and a part inside it stops the store with a message).
///
/// **Without `recording:`** on a store with persistence, the undoable parts are the ones the
/// store persists: the entity stores of its ``PersistenceMiddleware``'s writers, recorded as
/// above, and nothing else — UI state is never put back, and a row another writer deleted
/// or added is left as it is:
///
/// ```swift
/// let store = Store(initialState: AppState(), reducer: AppReducer(), environment: .live,
///                   persistence: PersistenceMiddleware(writers: [
///                       StateWriter(keyPath: \.items) { writes, deletions in try await db.save(writes, deleting: deletions) },
///                   ]),
///                   undo: UndoMiddleware(maxDepth: 20))   // records \.items only
/// ```
///
/// Only on a store **without persistence** is the whole state one part (the snapshot
/// mode): a step keeps the previous state entire, and undo puts it back entire, UI state
/// included, over whatever changed since; name the parts with `recording:` there too when
/// the state holds more than what undo should restore. In every mode an action whose net
/// effect is nothing records no step.
///
/// **Standalone** (a hand-written store, with no ``Store``), use ``UndoSnapshotStack``, the
/// stack of whole-state snapshots. The same calls on an `UndoMiddleware`
/// (``willReduce(state:coalescing:)``, ``undo(current:)``, ``redo(current:)``) go to a
/// snapshot stack it holds for that purpose, apart from the store's history:
///
/// ```swift
/// let undo = UndoMiddleware<AppState>(maxDepth: 50)
/// undo.willReduce(state: state, coalescing: false)
/// reducer.reduce(state: &state, action: action, environment: env)
/// if let previous = undo.undo(current: state) { state = previous }
/// ```
///
/// - Complexity: with a store, recording a step is O(entities and fields the action
///   changed); undoing or redoing it is O(entities it touched) for updates, O(*n*) to
///   re-insert deleted entities at their place or to restore an order. Standalone, as
///   ``UndoSnapshotStack``.
@MainActor
public final class UndoMiddleware<State> {
    /// The most undo steps kept; the oldest is dropped beyond it.
    public let maxDepth: Int
    /// The standalone calls' history (a store never uses it).
    private var snapshots: UndoSnapshotStack<State>
    /// The snapshot stack was used (standalone): the store's checks of `canUndo`/`canRedo`
    /// skip it otherwise (it is generic over the state: a metadata lookup each).
    private var usesSnapshots = false
    /// The parts of the state named undoable (empty: on a store, the persisted entity
    /// stores, or the whole state in snapshot mode when it persists nothing).
    let recordedPaths: [UndoRecordedPath<State>]
    /// Called when the history changed outside a store's own moves (``removeAll()``): the
    /// store notifies the readers of `canUndo`/`canRedo`.
    var historyDidChange: (() -> Void)?
    /// The store's history, by patches (see the type's documentation).
    private let patchUndo: StatePatchRing
    @exclusivity(unchecked) private var patchRedo: [StatePatch] = []
    @exclusivity(unchecked) private var patchCoalescingRun = false

    /// An empty history that keeps at most `maxDepth` undo steps, with no part named. On a
    /// store with persistence it records the parts the store persists (its writers' entity
    /// stores) and nothing else; on a store without persistence, and standalone, the whole
    /// state is one undoable part (snapshot mode: undo puts the whole previous state back, UI
    /// state included).
    ///
    /// ```swift
    /// let undo = UndoMiddleware<AppState>(maxDepth: 50)
    /// let store = Store(initialState: state, reducer: reducer, environment: env,
    ///                   persistence: persistence, undo: undo)   // records the persisted stores
    /// ```
    public convenience init(maxDepth: Int = 100) {
        self.init(maxDepth: maxDepth, paths: [])
    }

    /// An empty history that keeps at most `maxDepth` undo steps of the parts of the state
    /// named here (key paths, possibly nested): each ``EntityStore`` among them is recorded
    /// entity by entity, each other part whole; parts not named are never recorded nor
    /// restored.
    ///
    /// ```swift
    /// let store = Store(initialState: state, reducer: reducer, environment: env,
    ///                   undo: UndoMiddleware(maxDepth: 50, recording: \.items, \.tags, \.title))
    /// ```
    public convenience init<First, each Rest>(
        maxDepth: Int = 100,
        recording first: WritableKeyPath<State, First>,
        _ rest: repeat WritableKeyPath<State, each Rest>
    ) {
        var paths = [UndoRecordedPath(first)]
        for path in repeat each rest { paths.append(UndoRecordedPath(path)) }
        UndoRecordedPath.validate(paths)
        self.init(maxDepth: maxDepth, paths: paths)
    }

    private init(maxDepth: Int, paths: [UndoRecordedPath<State>]) {
        precondition(maxDepth > 0, "UndoMiddleware: maxDepth must be positive")
        self.maxDepth = maxDepth
        snapshots = UndoSnapshotStack(maxDepth: maxDepth)
        recordedPaths = paths
        patchUndo = StatePatchRing(limit: maxDepth)
    }

    /// Standalone: records `state` (the state before a reduce) as an undo step and clears
    /// redo, as ``UndoSnapshotStack/willReduce(state:coalescing:)`` does. With `coalescing`,
    /// consecutive coalescing calls form one step: only the first pushes.
    ///
    /// ```swift
    /// undo.willReduce(state: state)
    /// ```
    public func willReduce(state: State, coalescing: Bool = false) {
        usesSnapshots = true
        snapshots.willReduce(state: state, coalescing: coalescing)
    }

    /// Standalone: the state to go back to, or `nil` if there is none; `current` becomes
    /// redoable (``UndoSnapshotStack/undo(current:)``).
    ///
    /// ```swift
    /// if let previous = undo.undo(current: state) { state = previous }
    /// ```
    public func undo(current: State) -> State? {
        snapshots.undo(current: current)
    }

    /// Standalone: the state to go forward to, or `nil` if there is none; `current` becomes
    /// undoable (``UndoSnapshotStack/redo(current:)``).
    ///
    /// ```swift
    /// if let next = undo.redo(current: state) { state = next }
    /// ```
    public func redo(current: State) -> State? {
        snapshots.redo(current: current)
    }

    /// `true` when a step can be undone.
    public var canUndo: Bool { !patchUndo.isEmpty || (usesSnapshots && snapshots.canUndo) }
    /// `true` when a step can be redone.
    public var canRedo: Bool { !patchRedo.isEmpty || (usesSnapshots && snapshots.canRedo) }
    /// Number of undo steps held.
    public var undoCount: Int { (usesSnapshots ? snapshots.undoCount : 0) + patchUndo.count }
    /// Number of redo steps held.
    public var redoCount: Int { (usesSnapshots ? snapshots.redoCount : 0) + patchRedo.count }

    /// Forgets every step. A store using this history notifies the readers of its
    /// `canUndo` and `canRedo` (an Undo button disables itself).
    ///
    /// ```swift
    /// undo.removeAll()   // store.canUndo == false, observers notified
    /// ```
    public func removeAll() {
        if usesSnapshots { snapshots.removeAll() }
        patchUndo.removeAll()
        patchRedo.removeAll()
        patchCoalescingRun = false
        historyDidChange?()
    }

    // MARK: The store's history, by patches

    /// Records a step and clears redo; a coalescing step following a coalescing one is
    /// folded into it (`UndoLayout.merge`). When `maxDepth` is reached, the oldest step is
    /// dropped, once the layout has taken from it what it reuses (`UndoLayout.recycle`).
    /// (The layout, not closures: a closure of a method allocates its context on every send.)
    func record(_ patch: consuming StatePatch, coalescing: Bool, layout: Unmanaged<UndoLayout<State>>) {
        if !patchRedo.isEmpty { patchRedo.removeAll() }
        if coalescing, patchCoalescingRun, !patchUndo.isEmpty {
            undoLayoutMerge(layout, patch, into: &patchUndo[patchUndo.count - 1])
            return
        }
        patchCoalescingRun = coalescing
        recordedSteps &+= 1
        pushUndo(patch, layout: layout)
    }

    /// How many steps ``record(_:coalescing:layout:)`` added (merged ones not counted): a
    /// replay tells from it whether an action made an undo step, even in a full history.
    private(set) var recordedSteps = 0

    /// The step to undo, or `nil`; the caller pushes its inverse with ``pushRedo(_:)``.
    func popUndo() -> StatePatch? {
        patchCoalescingRun = false
        return patchUndo.popLast()
    }

    /// The step to redo, or `nil`; the caller pushes its inverse with ``pushUndo(_:)``.
    func popRedo() -> StatePatch? {
        patchCoalescingRun = false
        return patchRedo.popLast()
    }

    func pushRedo(_ patch: consuming StatePatch) { patchRedo.append(patch) }

    /// Pushes an undo step (see `record` for `layout`).
    func pushUndo(_ patch: consuming StatePatch, layout: Unmanaged<UndoLayout<State>>) {
        patchUndo.append(patch) { undoLayoutRecycle(layout, &$0) }
    }

    /// Applies `edit` to every undo and redo step, and drops the steps it left empty (an
    /// undo that would change nothing is no step). O(steps).
    func editPatches(_ edit: (inout StatePatch) -> Void) {
        var emptied = false
        for index in 0..<patchUndo.count {
            edit(&patchUndo[index])
            if patchUndo[index].isEmpty { emptied = true }
        }
        for index in patchRedo.indices {
            edit(&patchRedo[index])
            if patchRedo[index].isEmpty { emptied = true }
        }
        guard emptied else { return }
        patchUndo.removeAll { $0.isEmpty }
        patchRedo.removeAll { $0.isEmpty }
        // A coalescing run continues into the newest step only if that step is still its own.
        patchCoalescingRun = false
    }

}
