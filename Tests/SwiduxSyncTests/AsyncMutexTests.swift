import Foundation
@testable import SwiduxSync
import SwiduxTesting
import Testing

// A lost wake-up shows as a hang: the limit turns it into a failure.
@Suite(.timeLimit(.minutes(1))) struct AsyncMutexTests {
    /// What the holders saw, shared by the tasks of a test.
    final class Record: @unchecked Sendable {
        private let lock = LockedValue(())
        private var inside = 0
        private(set) var mostInside = 0
        private(set) var order: [Int] = []
        private(set) var cancelled: [Int] = []

        func enter(_ id: Int) {
            lock.withLock { _ in
                inside += 1
                mostInside = max(mostInside, inside)
                order.append(id)
            }
        }

        func leave() { lock.withLock { _ in inside -= 1 } }
        func wasCancelled(_ id: Int) { lock.withLock { _ in cancelled.append(id) } }
        var snapshot: (order: [Int], cancelled: [Int], mostInside: Int) { lock.withLock { _ in (order, cancelled, mostInside) } }
    }

    /// Waits until `count` tasks wait for `mutex` (their order in the queue is then known).
    static func untilWaiting(_ mutex: AsyncMutex, _ count: Int) async {
        while mutex.waiting < count { await Task.yield() }
    }

    @Test("withLock releases the lock when its body throws")
    func withLockUnlocksOnThrow() async throws {
        struct Boom: Error {}
        let mutex = AsyncMutex()
        await #expect(throws: Boom.self) { try await mutex.withLock { throw Boom() } }
        // Free again: a second holder gets it without anyone unlocking by hand.
        #expect(try await mutex.withLock { 42 } == 42)
        mutex.checkInvariants()
    }

    @Test("waiters get the lock in the order they queued")
    func fifo() async throws {
        let mutex = AsyncMutex()
        let record = Record()
        try await mutex.lock()
        var tasks: [Task<Void, any Error>] = []
        for id in 0..<20 {
            tasks.append(Task { try await mutex.withLock { record.enter(id); record.leave() } })
            await Self.untilWaiting(mutex, id + 1)
        }
        mutex.unlock()
        for task in tasks { try await task.value }
        #expect(record.snapshot.order == Array(0..<20))
        mutex.checkInvariants()
    }

    @Test("a cancelled waiter throws, never holds the lock, and the waiters behind it still get it")
    func cancelledWaiterLeavesTheQueue() async throws {
        let mutex = AsyncMutex()
        let record = Record()
        try await mutex.lock()
        var tasks: [Task<Void, any Error>] = []
        for id in 0..<3 {
            tasks.append(Task { try await mutex.withLock { record.enter(id); record.leave() } })
            await Self.untilWaiting(mutex, id + 1)
        }
        let second = tasks[1]
        second.cancel()
        await #expect(throws: CancellationError.self) { try await second.value }
        #expect(mutex.waiting == 2)
        mutex.unlock()
        try await tasks[0].value
        try await tasks[2].value
        #expect(record.snapshot.order == [0, 2])
        mutex.checkInvariants()
    }

    @Test("a task cancelled before it asks does not get even a free lock")
    func cancelledBeforeAsking() async throws {
        let mutex = AsyncMutex()
        let task = Task {
            withUnsafeCurrentTask { $0?.cancel() }
            try await mutex.lock()
        }
        await #expect(throws: CancellationError.self) { try await task.value }
        // Not held: a later task gets it at once.
        try await mutex.withLock {}
        mutex.checkInvariants()
    }

    @Test("many tasks, random cancellations: one holder at a time, every waiter not cancelled gets the lock, in queue order",
          arguments: [UInt64(1), 2, 3, 4, 5, 6, 7, 8])
    func randomized(seed: UInt64) async throws {
        var random = SeededRandomNumberGenerator(seed: seed)  // a failing run can be repeated
        let mutex = AsyncMutex()
        let record = Record()
        let count = 200
        // A queue of known order: the test holds the lock while the tasks line up.
        try await mutex.lock()
        var tasks: [Task<Void, any Error>] = []
        for id in 0..<count {
            let yields = Int.random(in: 0...3, using: &random)
            tasks.append(Task {
                do {
                    try await mutex.withLock {
                        record.enter(id)
                        // Others run meanwhile: a second holder would show in `mostInside`.
                        for _ in 0..<yields { await Task.yield() }
                        record.leave()
                    }
                } catch is CancellationError {
                    record.wasCancelled(id)
                }
            })
            await Self.untilWaiting(mutex, id + 1)
        }
        // Some are cancelled while everyone waits, some while the queue drains.
        var toCancel = Set((0..<count).filter { _ in Bool.random(using: &random) && Bool.random(using: &random) })
        for id in toCancel.filter({ _ in Bool.random(using: &random) }) {
            tasks[id].cancel()
            toCancel.remove(id)
        }
        mutex.checkInvariants()
        mutex.unlock()
        for id in toCancel.shuffled(using: &random) {
            for _ in 0..<Int.random(in: 0...4, using: &random) { await Task.yield() }
            tasks[id].cancel()
        }
        for task in tasks { try await task.value }

        let (order, cancelled, mostInside) = record.snapshot
        #expect(mostInside == 1)
        // Each task either held the lock (cancelled too late to matter) or was cancelled, never both.
        #expect(Set(order).isDisjoint(with: cancelled))
        #expect(order.count + cancelled.count == count)
        #expect(Set(order).count == order.count)
        // Cancelled ones are all tasks that were cancelled; nobody else misses the lock.
        let everCancelled = Set((0..<count).filter { tasks[$0].isCancelled })
        #expect(Set(cancelled).isSubset(of: everCancelled))
        #expect(order == order.sorted())
        #expect(mutex.waiting == 0)
        try await mutex.withLock {}
        mutex.checkInvariants()
    }
}
