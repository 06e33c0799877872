import Clocks
import Foundation
import Swidux

/// Wraps a test clock and counts the sleeps that reached it, so a test advances time only
/// after the sleeper it means to wake has registered (no race with task start-up).
final class SpyClock: Clock, @unchecked Sendable {
    typealias Duration = Swift.Duration
    typealias Instant = TestClock<Duration>.Instant

    let base: TestClock<Duration>
    private let lock = LockedValue(())
    private var sleeps = 0

    init(_ base: TestClock<Duration> = TestClock()) { self.base = base }

    var now: Instant { base.now }
    var minimumResolution: Duration { base.minimumResolution }

    /// Sleeps that started so far.
    var sleepCount: Int { lock.withLock { _ in sleeps } }

    private func recordSleep() { lock.withLock { _ in sleeps += 1 } }

    func sleep(until deadline: Instant, tolerance: Duration?) async throws {
        recordSleep()
        try await base.sleep(until: deadline, tolerance: tolerance)
    }

    /// Waits until `count` sleeps started, then advances the test clock.
    @MainActor
    func advance(by duration: Duration, afterSleeps count: Int) async {
        _ = await waitUntil { self.sleepCount >= count }
        await base.advance(by: duration)
    }

    func advance(by duration: Duration) async { await base.advance(by: duration) }
}
