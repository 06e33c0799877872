/// How an action takes part in undo (see ``Store/undo()``).
public enum UndoPolicy: Sendable, Hashable {
    /// The action is one undo step (if it changes anything).
    case record
    /// Consecutive coalescing actions form one undo step (typing in a text field).
    case coalesce
    /// The action is not undoable (effect responses, navigation, selection).
    case skip
}

/// Actions that classify themselves for undo; the ``Store`` asks them by default.
///
/// ```swift
/// extension AppAction: UndoableAction {
///     var undoPolicy: UndoPolicy {
///         switch self {
///         case .setTitle: .coalesce
///         case .searchResponse, .select: .skip
///         default: .record
///         }
///     }
/// }
/// ```
public protocol UndoableAction {
    /// How this action takes part in undo: its own step, coalesced with the previous one, or none.
    var undoPolicy: UndoPolicy { get }
}
