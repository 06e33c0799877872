/// A handle on the effects started by one ``Store/send(_:)``.
///
/// ```swift
/// await store.send(.refresh).finish()   // waits until the refresh effect completed
/// store.send(.search("a")).cancel()     // its late results are dropped
/// ```
///
/// It covers the effects the action's reducer returned **and those of its `.send`
/// follow-ups, recursively**: with `case .a: return .send(.b)` and
/// `case .b: return .run { send in …; await send(.c) }`, `send(.a).finish()` waits until
/// `.c` was sent and `send(.a).cancel()` stops `.b`'s effect. An action that an effect sends
/// later, from its task (`await send(.c)`, or a `.send` reached inside `concatenate` or after
/// a `debounce` window), is a new send: its own effects get their own task, which the
/// sender's task does not wait for or cancel. An action queued because it was sent while
/// another was being reduced (from a middleware hook) gets a task that waits until it is
/// reduced, then for its effects.
public struct StoreTask: Hashable, Sendable {
    let task: Task<Void, Never>?
    let scope: EffectScope?

    init(task: Task<Void, Never>?, scope: EffectScope?) {
        self.task = task
        self.scope = scope
    }

    /// Waits until every effect started by the action has finished. Cancelling the waiting
    /// task cancels those effects.
    public func finish() async {
        guard let task else { return }
        await withTaskCancellationHandler {
            await task.value
        } onCancel: {
            cancel()
        }
    }

    /// Cancels the effects started by the action; they deliver no further actions, even if
    /// their work completes later. Callable from any context.
    public func cancel() {
        guard let scope else { return }
        scope.flag.set()   // from here on, nothing the effects send is delivered
        task?.cancel()
        Task { @MainActor in scope.cancel() }   // and their tasks are cancelled
    }

    /// `true` once the effects were cancelled, or when there were none.
    public var isCancelled: Bool { task?.isCancelled ?? true }

    public static func == (lhs: StoreTask, rhs: StoreTask) -> Bool { lhs.task == rhs.task }
    public func hash(into hasher: inout Hasher) { hasher.combine(task) }
}
