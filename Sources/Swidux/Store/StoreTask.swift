/// A handle on the effects started by one ``Store/send(_:)``.
///
/// ```swift
/// .refreshable { await store.send(.refresh).finish() }   // ends once the refresh is done
/// store.send(.search("a")).cancel()                       // its late results are dropped
/// ```
///
/// It covers **everything the action set going, recursively**, as TCA's `StoreTask` does:
/// the effects the action's reducer returned, the effects of its `.send` follow-ups, and
/// the effects of every action those effects send (`await send(.loaded)` from a `.run`, a
/// `.send` inside `concatenate` or after a `debounce` window), and so on. With
/// `case .refresh: return .run { send in await send(.loaded(try await api.fetch())) }` and
/// `case .loaded: return .run { _ in await cache.save() }`, `send(.refresh).finish()`
/// returns once `.loaded`'s save is done, and `send(.refresh).cancel()` stops it too.
/// Inside `concatenate`, a `.send` member does not make the next member wait for the
/// effects of its action (members run one after the other; an action's effects run
/// beside them), but the task waits for them. An action queued because it was sent while
/// another was being reduced (from a middleware hook) gets a task that waits until it is
/// reduced, then for its effects.
public struct StoreTask: Hashable, Sendable {
    let task: Task<Void, Never>?
    let scope: EffectScope?

    init(task: Task<Void, Never>?, scope: EffectScope?) {
        self.task = task
        self.scope = scope
    }

    /// Waits until every effect started by the action, and by the actions those effects
    /// sent, has finished. Cancelling the waiting task cancels those effects, and from then on
    /// they deliver no action: a task cancelled before it got here cancels them on entry.
    ///
    /// It runs where its caller runs (no hop to another executor before it watches for
    /// cancellation): from the main actor, `await store.send(.a).finish()` watches the task
    /// before any effect can deliver an action, so that a cancellation that comes meanwhile
    /// cannot miss one.
    nonisolated(nonsending)
    public func finish() async {
        guard let task else { return }
        await withTaskCancellationHandler {
            await task.value
        } onCancel: {
            cancel()
        }
    }

    /// Cancels the effects started by the action (and by the actions they sent); they
    /// deliver no further actions, even if their work completes later. Callable from any
    /// context.
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
