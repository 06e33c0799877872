import Foundation

/// Every task a store started, reachable without the main actor so that a store's
/// `deinit` can cancel them; and what must end with the store (the sequences of
/// `values(of:)`).
final class TaskRegistry: Sendable {
    private struct State {
        var tasks: [UInt64: Task<Void, Never>] = [:]
        /// Ids whose task finished before it was inserted (a detached task can be that fast).
        var finishedEarly: Set<UInt64> = []
        var nextID: UInt64 = 0
        var releaseHandlers: [UInt64: @Sendable () -> Void] = [:]
        var isReleased = false
    }
    private let state = LockedValue(State())

    func makeID() -> UInt64 {
        state.withLock { state in
            state.nextID &+= 1
            return state.nextID
        }
    }

    func insert(_ task: Task<Void, Never>, id: UInt64) {
        state.withLock { state in
            if state.finishedEarly.remove(id) != nil { return }
            state.tasks[id] = task
        }
    }

    func remove(_ id: UInt64) {
        state.withLock { state in
            if state.tasks.removeValue(forKey: id) == nil { state.finishedEarly.insert(id) }
        }
    }

    var count: Int { state.withLock { $0.tasks.count } }

    func cancelAll() {
        let all = state.withLock { state in
            defer { state.tasks.removeAll() }
            return state.tasks.values
        }
        for task in all { task.cancel() }
    }

    /// Calls `handler` when the store is released (at once if it already was); returns the
    /// id that ``removeReleaseHandler(_:)`` takes.
    @discardableResult
    func onRelease(_ handler: @escaping @Sendable () -> Void) -> UInt64 {
        let (id, released) = state.withLock { state in
            state.nextID &+= 1
            if !state.isReleased { state.releaseHandlers[state.nextID] = handler }
            return (state.nextID, state.isReleased)
        }
        if released { handler() }
        return id
    }

    func removeReleaseHandler(_ id: UInt64) {
        _ = state.withLock { $0.releaseHandlers.removeValue(forKey: id) }
    }

    /// The store is gone: cancels its tasks and calls the release handlers.
    func storeReleased() {
        cancelAll()
        let handlers = state.withLock { state in
            state.isReleased = true
            defer { state.releaseHandlers.removeAll() }
            return state.releaseHandlers.values
        }
        for handler in handlers { handler() }
    }
}
