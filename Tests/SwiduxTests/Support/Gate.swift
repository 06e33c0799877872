import Foundation
import Swidux

/// A one-shot latch: tasks `wait()` until someone calls `open()`.
actor Gate {
    private var isOpen = false
    private var waiters: [CheckedContinuation<Void, Never>] = []

    func wait() async {
        if isOpen { return }
        await withCheckedContinuation { waiters.append($0) }
    }

    func open() {
        isOpen = true
        for waiter in waiters { waiter.resume() }
        waiters.removeAll()
    }
}

/// A thread-safe box for recording things from effects.
final class Recorder<Value: Sendable>: @unchecked Sendable {
    private let lock = LockedValue(())
    private var storage: [Value] = []
    func append(_ value: Value) { lock.withLock { _ in storage.append(value) } }
    var values: [Value] { lock.withLock { _ in storage } }
}

/// Waits (yielding, then in 1 ms steps, at most `seconds`) for asynchronous work to reach a
/// condition. It waits for work that is already running, never for a debounce: tests drive
/// time with a TestClock.
@MainActor
func waitUntil(seconds: Double = 5, _ condition: @MainActor () -> Bool) async -> Bool {
    for _ in 0..<200 {
        if condition() { return true }
        await Task.yield()
    }
    let deadline = Date().addingTimeInterval(seconds)
    while Date() < deadline {
        if condition() { return true }
        try? await Task.sleep(nanoseconds: 1_000_000)
    }
    return condition()
}

struct TestError: Error, Equatable, CustomStringConvertible {
    var message = "boom"
    var description: String { message }
}
