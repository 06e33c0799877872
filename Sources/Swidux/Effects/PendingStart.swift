/// The effects of an action queued during a dispatch (sent from a middleware hook or an
/// observer): known only once the action is reduced. Its ``StoreTask`` waits for them.
@MainActor
final class PendingStart {
    let scope = EffectScope(parent: nil, isDispatchRoot: true)
    private var resolved = false
    private var waiter: Task<Void, Never>?
    private var continuations: [CheckedContinuation<Task<Void, Never>?, Never>] = []

    /// The action was reduced (`waiter` covers its effects), or dropped (`nil`).
    func resolve(_ waiter: Task<Void, Never>?) {
        guard !resolved else { return }
        resolved = true
        self.waiter = waiter
        for continuation in continuations { continuation.resume(returning: waiter) }
        continuations.removeAll()
    }

    private func started() async -> Task<Void, Never>? {
        if resolved { return waiter }
        return await withCheckedContinuation { continuations.append($0) }
    }

    /// A handle that waits for the action to be reduced, then for its effects.
    var storeTask: StoreTask {
        let task = Task { @MainActor [self] in
            guard let effects = await started() else { return }
            await withTaskCancellationHandler {
                await effects.value
            } onCancel: {
                effects.cancel()
            }
        }
        return StoreTask(task: task, scope: scope)
    }
}
