import Foundation
import Testing
@testable import Swidux
import SwiduxTesting

/// The package's one waiter: a wake-up is never lost, a timeout ends a wait, cancellation
/// ends a wait, and no wait is left registered once it returned.
@Suite struct WakeSignalTests {
    /// Long enough that a wait ending `.timedOut` with it means a lost wake-up.
    static let long = Duration.seconds(60)

    @Test func aWakeBeforeTheWaitIsNotLost() async {
        let signal = WakeSignal()
        let seen = signal.generation
        signal.wake()
        #expect(await signal.wait(after: seen, timeout: Self.long) == .woken)
        #expect(signal.waiterCount == 0)
    }

    @Test func aCurrentGenerationWaitsForTheNextWake() async {
        let signal = WakeSignal()
        signal.wake()
        let seen = signal.generation
        #expect(await signal.wait(after: seen, timeout: .milliseconds(20)) == .timedOut)
        #expect(signal.waiterCount == 0)
    }

    @Test func theTimeoutEndsEveryWait() async {
        let signal = WakeSignal()
        let endings = await withTaskGroup(of: WakeSignal.Ending.self) { group in
            for index in 0..<20 {
                group.addTask { await signal.wait(timeout: .milliseconds(index % 5)) }
            }
            return await group.reduce(into: []) { $0.append($1) }
        }
        #expect(endings == Array(repeating: .timedOut, count: 20))
        #expect(signal.waiterCount == 0)
    }

    @Test func cancellationEndsAWait() async {
        let signal = WakeSignal()
        let waiter = Task { await signal.wait(timeout: Self.long) }
        while signal.waiterCount == 0 { await Task.yield() }
        waiter.cancel()
        #expect(await waiter.value == .cancelled)
        #expect(signal.waiterCount == 0)
        // Already cancelled: does not suspend.
        let cancelled = Task {
            withUnsafeCurrentTask { $0?.cancel() }
            return await signal.wait(timeout: Self.long)
        }
        #expect(await cancelled.value == .cancelled)
        #expect(signal.waiterCount == 0)
    }

    /// Random interleavings of waits (given the current generation, a stale one, or none),
    /// wake-ups and cancellations over many waiters: every wait not cancelled ends `.woken`
    /// (none waits out its minute), and none stays registered.
    @Test(arguments: 0..<40)
    func randomInterleavingsLoseNoWakeUp(seed: Int) async {
        var rng = SeededRandomNumberGenerator(seed: UInt64(seed))
        let signal = WakeSignal()
        var waiters: [(task: Task<WakeSignal.Ending, Never>, cancelled: Bool)] = []
        for _ in 0..<Int.random(in: 1...60, using: &rng) {
            switch Int.random(in: 0..<10, using: &rng) {
            case 0..<4:
                let seen = signal.generation
                waiters.append((Task { await signal.wait(after: seen, timeout: Self.long) }, false))
            case 4:
                // Read before a wake-up that then comes: must not wait.
                let seen = signal.generation
                signal.wake()
                #expect(await signal.wait(after: seen, timeout: Self.long) == .woken)
            case 5:
                waiters.append((Task { await signal.wait(timeout: Self.long) }, false))
            case 6, 7:
                signal.wake()
            case 8:
                if let index = waiters.indices.randomElement(using: &rng) {
                    waiters[index].task.cancel()
                    waiters[index].cancelled = true
                }
            default:
                await Task.yield()
            }
        }
        // A wait given no generation begins at its own registration: wake until every
        // waiter has ended, as a client's stop does.
        var endings: [WakeSignal.Ending] = []
        for waiter in waiters {
            while true {
                signal.wake()
                if let ending = await Self.ending(of: waiter.task) {
                    endings.append(ending)
                    if !waiter.cancelled { #expect(ending == .woken) }
                    #expect(ending != .timedOut)
                    break
                }
            }
        }
        #expect(endings.count == waiters.count)
        #expect(signal.waiterCount == 0)
    }

    /// The task's result if it ends within a few yields, nil otherwise.
    static func ending(of task: Task<WakeSignal.Ending, Never>) async -> WakeSignal.Ending? {
        let done = LockedValue<WakeSignal.Ending?>(nil)
        let reader = Task { let value = await task.value; done.withLock { $0 = value } }
        for _ in 0..<100 {
            if let value = done.withLock({ $0 }) { return value }
            await Task.yield()
        }
        reader.cancel()
        return done.withLock { $0 }
    }
}
