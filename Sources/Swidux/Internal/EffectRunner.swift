/// Interprets ``Effect`` values for a store: spawns their tasks, tracks cancellation ids,
/// routes their actions back through `dispatch` unless their scope was cancelled.
@MainActor
final class EffectRunner<Action> {
    private let dispatch: @MainActor (Action) -> Void
    private let onError: @MainActor (any Error) -> Void
    let registry: TaskRegistry
    private var cancellables: [EffectID: [ObjectIdentifier: EffectScope]] = [:]

    init(
        dispatch: @escaping @MainActor (Action) -> Void,
        onError: @escaping @MainActor (any Error) -> Void,
        registry: TaskRegistry = TaskRegistry()
    ) {
        self.dispatch = dispatch
        self.onError = onError
        self.registry = registry
    }

    /// Number of effect tasks still running (for tests and `TestStore`).
    var runningCount: Int { registry.count }

    /// Starts `effect` in a new top-level scope and returns a handle on it.
    func start(_ effect: Effect<Action>) -> StoreTask {
        if effect.isNone { return StoreTask(task: nil, scope: nil) }
        let scope = EffectScope(parent: nil)
        let tasks = execute(effect, in: scope)
        guard !tasks.isEmpty else { return StoreTask(task: nil, scope: nil) }
        let waiter = Task { @MainActor in
            await Self.waitAll(tasks)
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
    private func execute(_ effect: Effect<Action>, in scope: EffectScope) -> [Task<Void, Never>] {
        switch effect.operation {
        case .none:
            return []
        case .send(let action):
            if !scope.isCancelled { dispatch(action) }
            return []
        case .run(let priority, let body):
            return [spawn(priority: priority, in: scope, body)]
        case .cancel(let id):
            cancel(id: id)
            return []
        case .cancellable(let id, let cancelInFlight, let inner):
            if cancelInFlight { cancel(id: id) }
            let child = EffectScope(parent: scope)
            cancellables[id, default: [:]][ObjectIdentifier(child)] = child
            let tasks = execute(inner, in: child)
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
            return effects.flatMap { execute($0, in: scope) }
        case .concatenate(let effects):
            let effects = effects.filter { !$0.isNone }
            guard !effects.isEmpty else { return [] }
            return [spawn(priority: nil, in: scope) { context in
                for effect in effects {
                    if await context.isCancelled() { return }
                    await context.run(effect)
                }
            }]
        }
    }

    private func unregister(_ scope: EffectScope, id: EffectID) {
        cancellables[id]?.removeValue(forKey: ObjectIdentifier(scope))
        if cancellables[id]?.isEmpty == true { cancellables.removeValue(forKey: id) }
        scope.detach()
    }

    private func cancel(id: EffectID) {
        guard let scopes = cancellables.removeValue(forKey: id) else { return }
        for scope in scopes.values { scope.cancel(); scope.detach() }
    }

    private func context(for scope: EffectScope) -> EffectContext<Action> {
        EffectContext(
            send: { [weak self] action in
                guard let self, !scope.isCancelled else { return }
                self.dispatch(action)
            },
            reportError: { [weak self] error in
                guard let self, !scope.isCancelled else { return }
                self.onError(error)
            },
            run: { [weak self] effect in
                guard let self, !scope.isCancelled else { return }
                await Self.waitAll(self.execute(effect, in: scope))
            },
            isCancelled: { scope.isCancelled }
        )
    }

    private func spawn(
        priority: TaskPriority?,
        in scope: EffectScope,
        _ body: @escaping @Sendable (EffectContext<Action>) async -> Void
    ) -> Task<Void, Never> {
        let id = registry.makeID()
        let context = context(for: scope)
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
