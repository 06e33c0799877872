/// A cancellation scope: the effects started by one dispatch (its `.send` follow-ups' scopes
/// are its children), or marked with one id.
/// Cancelling it cancels its tasks and its child scopes; a cancelled scope (or one whose
/// ancestor is cancelled) delivers no action.
@MainActor
final class EffectScope {
    let parent: EffectScope?
    /// `true` for the scope of one dispatch's effects (its ``StoreTask``'s), `false` for a
    /// scope made inside it (`.cancellable`).
    let isDispatchRoot: Bool
    /// Settable from any thread (``StoreTask/cancel()``); read before every delivered action.
    nonisolated let flag = CancellationFlag()
    private var cancelled: Bool { flag.isSet }
    private var tasks: [UInt64: Task<Void, Never>] = [:]
    private var children: [ObjectIdentifier: EffectScope] = [:]
    private var cancelledTasks = false

    /// The tasks of the actions this dispatch's effects sent from their tasks (not known
    /// finished yet): the dispatch's ``StoreTask`` waits for them too.
    private var followers: [StoreTask] = []
    /// `followers.count` at which finished ones are dropped (amortized O(1) per follower).
    private var followersLimit = 32
    /// The dispatch this scope belongs to is finished, its followers with it.
    private(set) var isFinished = false

    init(parent: EffectScope?, isDispatchRoot: Bool = false) {
        self.parent = parent
        self.isDispatchRoot = isDispatchRoot
        parent?.children[ObjectIdentifier(self)] = self
    }

    /// The scope of the dispatch whose effects run in this scope.
    var dispatchRoot: EffectScope {
        var scope = self
        while !scope.isDispatchRoot, let parent = scope.parent { scope = parent }
        return scope
    }

    /// An action sent by one of this dispatch's effects was dispatched: its task is waited
    /// for with this dispatch's own effects.
    func follow(_ task: StoreTask) {
        guard task.task != nil else { return }
        if followers.count >= followersLimit {
            followers.removeAll { $0.scope?.isFinished == true }
            followersLimit = max(32, 2 * followers.count)
        }
        followers.append(task)
    }

    /// Waits for the followers, the ones they add while it waits included.
    func waitForFollowers() async {
        while let next = followers.popLast() {
            guard let task = next.task else { continue }
            await task.value
        }
    }

    /// The dispatch's effects and followers are done.
    func finish() {
        isFinished = true
        detach()
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
final class CancellationFlag: Sendable {
    private let value = LockedValue(false)
    var isSet: Bool { value.withLock { $0 } }
    func set() { value.withLock { $0 = true } }
}
