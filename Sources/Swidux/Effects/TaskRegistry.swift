import Foundation

/// Every task a store started, reachable without the main actor so that a store's
/// `deinit` can cancel them.
final class TaskRegistry: @unchecked Sendable {
    private let lock = NSLock()
    private var tasks: [UInt64: Task<Void, Never>] = [:]
    /// Ids whose task finished before it was inserted (a detached task can be that fast).
    private var finishedEarly: Set<UInt64> = []
    private var nextID: UInt64 = 0

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
}
