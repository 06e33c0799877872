import DequeModule

/// Undo and redo for a hand-written store: a stack of whole-state snapshots.
///
/// A store that runs its reducer itself (the hand-written `AppStore` pattern, with no
/// ``Store``) keeps the state before each undoable reduce, and gets it back to undo. Undo
/// puts the **whole** previous state back — UI state included, over whatever changed since —
/// so keep in the state only what undo should restore, or use a ``Store`` with an
/// ``UndoMiddleware``, which records what each action changed, field by field.
///
/// ```swift
/// @MainActor @Observable
/// final class AppStore {
///     private(set) var state = AppState()
///     private var history = UndoSnapshotStack<AppState>(maxDepth: 50)
///     var canUndo: Bool { history.canUndo }
///
///     func send(_ action: AppAction) {
///         switch action.undoPolicy {
///         case .record: history.willReduce(state: state)
///         case .coalesce: history.willReduce(state: state, coalescing: true)
///         case .skip: break
///         }
///         _ = AppReducer().reduce(state: &state, action: action, environment: ())
///     }
///     func undo() {
///         if let previous = history.undo(current: state) { state = previous }
///     }
///     func redo() {
///         if let next = history.redo(current: state) { state = next }
///     }
/// }
/// ```
///
/// A value type: held in an `@Observable` store, its `canUndo` and `canRedo` are observed
/// like any other property.
///
/// - Complexity: ``willReduce(state:coalescing:)``, ``undo(current:)``, ``redo(current:)`` and
///   trimming to ``maxDepth`` are O(1); each snapshot shares the state's storage until the
///   state changes (copy on write), so memory grows with what changed between snapshots.
public struct UndoSnapshotStack<State> {
    /// The most undo steps kept; the oldest is dropped beyond it.
    public let maxDepth: Int
    private var undoStack = Deque<State>()
    private var redoStack: [State] = []
    private var coalescingRun = false

    /// An empty history that keeps at most `maxDepth` snapshots.
    ///
    /// ```swift
    /// var history = UndoSnapshotStack<AppState>(maxDepth: 50)
    /// ```
    public init(maxDepth: Int = 100) {
        precondition(maxDepth > 0, "UndoSnapshotStack: maxDepth must be positive")
        self.maxDepth = maxDepth
    }

    /// Records `state` (the state before a reduce) as an undo step and clears redo. With
    /// `coalescing`, consecutive coalescing calls form one step: only the first one records
    /// (typing in a text field undoes as one step).
    ///
    /// ```swift
    /// history.willReduce(state: state)
    /// reducer.reduce(state: &state, action: action, environment: env)
    /// ```
    public mutating func willReduce(state: State, coalescing: Bool = false) {
        redoStack.removeAll()
        if coalescing, coalescingRun, !undoStack.isEmpty { return }
        coalescingRun = coalescing
        push(state)
    }

    /// The state to go back to, or `nil` if there is none; `current` becomes redoable.
    ///
    /// ```swift
    /// if let previous = history.undo(current: state) { state = previous }
    /// ```
    public mutating func undo(current: State) -> State? {
        guard let previous = undoStack.popLast() else { return nil }
        redoStack.append(current)
        coalescingRun = false
        return previous
    }

    /// The state to go forward to, or `nil` if there is none; `current` becomes undoable.
    ///
    /// ```swift
    /// if let next = history.redo(current: state) { state = next }
    /// ```
    public mutating func redo(current: State) -> State? {
        guard let next = redoStack.popLast() else { return nil }
        push(current)
        coalescingRun = false
        return next
    }

    /// `true` when a step can be undone.
    public var canUndo: Bool { !undoStack.isEmpty }
    /// `true` when a step can be redone.
    public var canRedo: Bool { !redoStack.isEmpty }
    /// Number of undo steps held.
    public var undoCount: Int { undoStack.count }
    /// Number of redo steps held.
    public var redoCount: Int { redoStack.count }

    /// Forgets every step.
    ///
    /// ```swift
    /// history.removeAll()   // history.canUndo == false
    /// ```
    public mutating func removeAll() {
        undoStack.removeAll()
        redoStack.removeAll()
        coalescingRun = false
    }

    private mutating func push(_ state: State) {
        undoStack.append(state)
        if undoStack.count > maxDepth { undoStack.removeFirst() }
    }
}

extension UndoSnapshotStack: Sendable where State: Sendable {}
