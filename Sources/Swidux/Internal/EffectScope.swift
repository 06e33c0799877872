/// A cancellation scope: the effects started by one dispatch, or marked with one id.
/// Cancelling it cancels its tasks and its child scopes; a cancelled scope (or one whose
/// ancestor is cancelled) delivers no action.
@MainActor
final class EffectScope {
    let parent: EffectScope?
    private var cancelled = false
    private var tasks: [UInt64: Task<Void, Never>] = [:]
    private var children: [ObjectIdentifier: EffectScope] = [:]

    init(parent: EffectScope?) {
        self.parent = parent
        parent?.children[ObjectIdentifier(self)] = self
    }

    var isCancelled: Bool {
        var scope: EffectScope? = self
        while let current = scope {
            if current.cancelled { return true }
            scope = current.parent
        }
        return false
    }

    func add(_ task: Task<Void, Never>, id: UInt64) {
        if isCancelled { task.cancel() }
        tasks[id] = task
    }

    func remove(taskID: UInt64) { tasks.removeValue(forKey: taskID) }

    /// Detaches a finished child scope so it can be freed.
    func detach() { parent?.children.removeValue(forKey: ObjectIdentifier(self)) }

    func cancel() {
        guard !cancelled else { return }
        cancelled = true
        for task in tasks.values { task.cancel() }
        tasks.removeAll()
        for child in children.values { child.cancel() }
    }
}
