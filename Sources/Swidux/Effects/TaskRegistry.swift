import Foundation

/// Every task a store started, reachable without the main actor so that a store's
/// `deinit` can cancel them; and what must end with the store (the sequences of
/// `values(of:)`).
final class TaskRegistry: @unchecked Sendable {
    private let lock = NSLock()
    private var tasks: [UInt64: Task<Void, Never>] = [:]
    /// Ids whose task finished before it was inserted (a detached task can be that fast).
    private var finishedEarly: Set<UInt64> = []
    private var nextID: UInt64 = 0
    private var releaseHandlers: [UInt64: @Sendable () -> Void] = [:]
    private var isReleased = false

    func makeID() -> UInt64 {
        lock.lock(); defer { lock.unlock() }
        nextID &+= 1
        return nextID
    }

    func insert(_ task: Task<Void, Never>, id: UInt64) {
        lock.lock(); defer { lock.unlock() }
        if finishedEarly.remove(id) != nil { return }
        tasks[id] = task
    }

    func remove(_ id: UInt64) {
        lock.lock(); defer { lock.unlock() }
        if tasks.removeValue(forKey: id) == nil { finishedEarly.insert(id) }
    }

    var count: Int {
        lock.lock(); defer { lock.unlock() }
        return tasks.count
    }

    func cancelAll() {
        lock.lock()
        let all = tasks.values
        tasks.removeAll()
        lock.unlock()
        for task in all { task.cancel() }
    }

    /// Calls `handler` when the store is released (at once if it already was); returns the
    /// id that ``removeReleaseHandler(_:)`` takes.
    @discardableResult
    func onRelease(_ handler: @escaping @Sendable () -> Void) -> UInt64 {
        lock.lock()
        nextID &+= 1
        let id = nextID
        let released = isReleased
        if !released { releaseHandlers[id] = handler }
        lock.unlock()
        if released { handler() }
        return id
    }

    func removeReleaseHandler(_ id: UInt64) {
        lock.lock(); defer { lock.unlock() }
        releaseHandlers.removeValue(forKey: id)
    }

    /// The store is gone: cancels its tasks and calls the release handlers.
    func storeReleased() {
        cancelAll()
        lock.lock()
        isReleased = true
        let handlers = releaseHandlers.values
        releaseHandlers.removeAll()
        lock.unlock()
        for handler in handlers { handler() }
    }
}
