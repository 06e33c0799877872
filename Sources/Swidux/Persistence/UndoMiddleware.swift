import DequeModule

/// Snapshot-based undo/redo of a state (seed pattern): push the state before each undoable
/// reduce, pop it to undo.
///
/// With a ``Store``, pass it as `undo:` and call ``Store/undo()`` / ``Store/redo()``: the store
/// pushes only for actions that changed something, honours ``UndoPolicy``, and persists the
/// restored state through the normal path (``EntityStore/restore(from:)``). Standalone:
///
/// ```swift
/// let undo = UndoMiddleware<AppState>(maxDepth: 50)
/// undo.willReduce(state: state, coalescing: false)
/// reducer.reduce(state: &state, action: action, environment: env)
/// if let previous = undo.undo(current: state) { state = previous }
/// ```
///
/// - Complexity: push, undo, redo and trimming to `maxDepth` are O(1).
@MainActor
public final class UndoMiddleware<State> {
    /// The most undo steps kept; the oldest is dropped beyond it.
    public let maxDepth: Int
    private var undoStack = Deque<State>()
    private var redoStack: [State] = []
    private var coalescingRun = false

    public init(maxDepth: Int = 100) {
        precondition(maxDepth > 0, "UndoMiddleware: maxDepth must be positive")
        self.maxDepth = maxDepth
    }

    /// Records `state` (the state before a reduce) as an undo step and clears redo.
    /// With `coalescing`, consecutive coalescing calls form one step: only the first pushes.
    public func willReduce(state: State, coalescing: Bool = false) {
        redoStack.removeAll()
        if coalescing, coalescingRun, !undoStack.isEmpty { return }
        coalescingRun = coalescing
        push(state)
    }

    /// The state to go back to, or `nil` if there is none; `current` becomes redoable.
    public func undo(current: State) -> State? {
        guard let previous = undoStack.popLast() else { return nil }
        redoStack.append(current)
        coalescingRun = false
        return previous
    }

    /// The state to go forward to, or `nil` if there is none; `current` becomes undoable.
    public func redo(current: State) -> State? {
        guard let next = redoStack.popLast() else { return nil }
        push(current)
        coalescingRun = false
        return next
    }

    public var canUndo: Bool { !undoStack.isEmpty }
    public var canRedo: Bool { !redoStack.isEmpty }
    /// Number of undo steps held.
    public var undoCount: Int { undoStack.count }
    /// Number of redo steps held.
    public var redoCount: Int { redoStack.count }

    /// Forgets every step.
    public func removeAll() {
        undoStack.removeAll()
        redoStack.removeAll()
        coalescingRun = false
    }

    /// Applies `edit` to every undo and redo snapshot (entities another writer deleted leave
    /// the snapshots too, so that undo does not bring them back). O(steps × edit).
    func editSnapshots(_ edit: (inout State) -> Void) {
        for index in undoStack.indices { edit(&undoStack[index]) }
        for index in redoStack.indices { edit(&redoStack[index]) }
    }

    private func push(_ state: State) {
        undoStack.append(state)
        if undoStack.count > maxDepth { undoStack.removeFirst() }
    }
}
