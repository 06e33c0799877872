import Foundation

/// Every task a store started, reachable without the main actor so that a store's
/// `deinit` can cancel them.
final class TaskRegistry: @unchecked Sendable {
    private let lock = NSLock()
    private var tasks: [UInt64: Task<Void, Never>] = [:]
    private var nextID: UInt64 = 0

    func makeID() -> UInt64 {
        lock.lock(); defer { lock.unlock() }
        nextID &+= 1
        return nextID
    }

    func insert(_ task: Task<Void, Never>, id: UInt64) {
        lock.lock(); tasks[id] = task; lock.unlock()
    }

    func remove(_ id: UInt64) {
        lock.lock(); tasks.removeValue(forKey: id); lock.unlock()
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
