/// A cancellation scope: the effects started by one dispatch (its `.send` follow-ups' scopes
/// are its children), or marked with one id.
/// Cancelling it cancels its tasks and its child scopes; a cancelled scope (or one whose
/// ancestor is cancelled) delivers no action.
@MainActor
final class EffectScope {
    let parent: EffectScope?
    /// Settable from any thread (``StoreTask/cancel()``); read before every delivered action.
    nonisolated let flag = CancellationFlag()
    private var cancelled: Bool { flag.isSet }
    private var tasks: [UInt64: Task<Void, Never>] = [:]
    private var children: [ObjectIdentifier: EffectScope] = [:]
    private var cancelledTasks = false

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

    /// `true` if this scope is `other` or one of its ancestors.
    func isAncestor(of other: EffectScope) -> Bool {
        var scope: EffectScope? = other
        while let current = scope {
            if current === self { return true }
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
        flag.set()
        guard !cancelledTasks else { return }
        cancelledTasks = true
        for task in tasks.values { task.cancel() }
        tasks.removeAll()
        for child in children.values { child.cancel() }
    }
}

import Foundation

/// A thread-safe, one-way flag.
final class CancellationFlag: @unchecked Sendable {
    private let lock = NSLock()
    private var value = false
    var isSet: Bool { lock.lock(); defer { lock.unlock() }; return value }
    func set() { lock.lock(); value = true; lock.unlock() }
}
