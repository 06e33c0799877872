/// Interprets ``Effect`` values for a store: spawns their tasks, tracks cancellation ids,
/// routes their actions back through `dispatch` unless their scope was cancelled.
@MainActor
final class EffectRunner<Action> {
    /// Dispatches an action; the scope is the one of the effect that sent it (its effects
    /// then run in a child of that scope), `nil` for an action sent to the store.
    typealias Dispatch = @MainActor (Action, _ followUpOf: EffectScope?) -> StoreTask

    private let dispatch: Dispatch
    private let onError: @MainActor (any Error) -> Void
    let registry: TaskRegistry
    private var cancellables: [EffectID: [ObjectIdentifier: EffectScope]] = [:]
    /// The last `.emit` scheduled: the next one waits for it (events in dispatch order).
    private var lastEmission: Task<Void, Never>?
    private var lastEmissionID: UInt64 = 0

    init(
        dispatch: @escaping Dispatch,
        onError: @escaping @MainActor (any Error) -> Void,
        registry: TaskRegistry = TaskRegistry()
    ) {
        self.dispatch = dispatch
        self.onError = onError
        self.registry = registry
    }

    /// Number of effect tasks still running (for tests and `TestStore`).
    var runningCount: Int { registry.count }

    /// Starts `effect` and returns a handle on it (and on the effects of its `.send`
    /// follow-ups, recursively).
    ///
    /// - Parameters:
    ///   - parent: the scope of the effect whose `.send` follow-up this action is.
    ///   - given: a scope made earlier (an action queued during a dispatch).
    func start(_ effect: Effect<Action>, followUpOf parent: EffectScope? = nil, in given: EffectScope? = nil) -> StoreTask {
        if effect.isNone { return StoreTask(task: nil, scope: nil) }
        let scope = given ?? EffectScope(parent: parent, isDispatchRoot: true)
        let tasks = execute(effect, in: scope, namespace: [])
        guard !tasks.isEmpty else {
            scope.finish()
            return StoreTask(task: nil, scope: nil)
        }
        let waiter = Task { @MainActor in
            await Self.waitAll(tasks)
            // The actions those effects sent were dispatched before they finished.
            await scope.waitForFollowers()
            scope.finish()
        }
        return StoreTask(task: waiter, scope: scope)
    }

    static func waitAll(_ tasks: [Task<Void, Never>]) async {
        await withTaskCancellationHandler {
            for task in tasks { await task.value }
        } onCancel: {
            for task in tasks { task.cancel() }
        }
    }

    /// Runs the synchronous part of `effect` now and returns the tasks it spawned.
    /// - Parameters:
    ///   - namespace: the reducer scope the effect was started from (cancel ids resolve in it).
    ///   - later: `true` when an effect's task runs `effect` (a member of `concatenate`, the
    ///     body of a debounce): its `.send`s are then actions sent later, with their own tasks.
    private func execute(
        _ effect: Effect<Action>, in scope: EffectScope, namespace: [AnyHashable], later: Bool = false
    ) -> [Task<Void, Never>] {
        switch effect.operation {
        case .none:
            return []
        case .send(let action):
            guard !scope.isCancelled else { return [] }
            if later {
                sendLater(action, from: scope)
                return []
            }
            // An immediate follow-up: its effects run in a child of this scope, so that the
            // sender's task covers them.
            return dispatch(action, scope).task.map { [$0] } ?? []
        case .run(let priority, let body):
            return [spawn(priority: priority, in: scope, namespace: namespace, body)]
        case .cancel(let id):
            cancel(id: id.resolved(in: namespace))
            return []
        case .cancellable(let id, let cancelInFlight, let inner):
            let id = id.resolved(in: namespace)
            // Not the scopes this effect runs in: `.cancellable(id: X).debounce(id: X)` must
            // not cancel its own debounce.
            if cancelInFlight { cancel(id: id, sparingAncestorsOf: scope) }
            let child = EffectScope(parent: scope)
            cancellables[id, default: [:]][ObjectIdentifier(child)] = child
            let tasks = execute(inner, in: child, namespace: namespace, later: later)
            if tasks.isEmpty {
                unregister(child, id: id)
                return []
            }
            let watcherID = registry.makeID()
            let watcher = Task { @MainActor [weak self] in
                await Self.waitAll(tasks)
                self?.unregister(child, id: id)
                self?.registry.remove(watcherID)
                scope.remove(taskID: watcherID)
            }
            registry.insert(watcher, id: watcherID)
            scope.add(watcher, id: watcherID)
            return [watcher]
        case .merge(let effects):
            return effects.flatMap { execute($0, in: scope, namespace: namespace, later: later) }
        case .concatenate(let effects):
            let effects = effects.filter { !$0.isNone }
            guard !effects.isEmpty else { return [] }
            return [spawn(priority: nil, in: scope, namespace: namespace) { context in
                for effect in effects {
                    if await context.isCancelled() { return }
                    await context.run(effect)
                }
            }]
        case .deferred(let make):
            return execute(make(), in: scope, namespace: namespace, later: later)
        case .emit(let deliver):
            guard !scope.isCancelled else { return [] }
            return [emit(deliver, in: scope)]
        case .scoped(let key, let inner):
            return execute(inner, in: scope, namespace: namespace + [key], later: later)
        }
    }

    /// Schedules an emission after the previous one, on the main actor; dropped if its scope
    /// is cancelled (or the store released) before its turn.
    private func emit(_ deliver: @escaping @Sendable () -> Void, in scope: EffectScope) -> Task<Void, Never> {
        let previous = lastEmission
        let id = registry.makeID()
        let registry = registry
        let task = Task { @MainActor [weak self] in
            await previous?.value
            if !Task.isCancelled, !scope.isCancelled { deliver() }
            registry.remove(id)
            scope.remove(taskID: id)
            if self?.lastEmissionID == id { self?.lastEmission = nil }   // the chain is idle
        }
        lastEmissionID = id
        lastEmission = task
        registry.insert(task, id: id)
        scope.add(task, id: id)
        return task
    }

    private func unregister(_ scope: EffectScope, id: EffectID) {
        cancellables[id]?.removeValue(forKey: ObjectIdentifier(scope))
        if cancellables[id]?.isEmpty == true { cancellables.removeValue(forKey: id) }
        scope.detach()
    }

    /// Cancels the effects marked `id`, except those `current` runs in.
    private func cancel(id: EffectID, sparingAncestorsOf current: EffectScope? = nil) {
        guard let scopes = cancellables.removeValue(forKey: id) else { return }
        var spared: [ObjectIdentifier: EffectScope] = [:]
        for (key, scope) in scopes {
            if let current, scope.isAncestor(of: current) {
                spared[key] = scope
            } else {
                scope.cancel()
                scope.detach()
            }
        }
        if !spared.isEmpty { cancellables[id] = spared }
    }

    /// Dispatches an action an effect sends from its task: its effects run in a child of
    /// the sender's dispatch scope (cancelled with it), and the sender's ``StoreTask``
    /// waits for them, recursively.
    private func sendLater(_ action: Action, from scope: EffectScope) {
        let root = scope.dispatchRoot
        root.follow(dispatch(action, root))
    }

    private func context(for scope: EffectScope, namespace: [AnyHashable]) -> EffectContext<Action> {
        EffectContext(
            send: { [weak self] action in
                guard let self, !scope.isCancelled else { return }
                self.sendLater(action, from: scope)
            },
            reportError: { [weak self] error in
                guard let self, !scope.isCancelled else { return }
                self.onError(error)
            },
            run: { [weak self] effect in
                guard let self, !scope.isCancelled else { return }
                await Self.waitAll(self.execute(effect, in: scope, namespace: namespace, later: true))
            },
            isCancelled: { scope.isCancelled }
        )
    }

    private func spawn(
        priority: TaskPriority?,
        in scope: EffectScope,
        namespace: [AnyHashable],
        _ body: @escaping @Sendable (EffectContext<Action>) async -> Void
    ) -> Task<Void, Never> {
        let id = registry.makeID()
        let context = context(for: scope, namespace: namespace)
        let registry = registry
        // Not isolated: the body runs on the global executor; `send` hops to the main actor.
        let task = Task.detached(priority: priority) {
            await body(context)
            registry.remove(id)
            await scope.remove(taskID: id)
        }
        registry.insert(task, id: id)
        scope.add(task, id: id)
        return task
    }
}
