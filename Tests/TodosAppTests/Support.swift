import Foundation
import Swidux
@testable import TodosApp

/// A deterministic UUID: 00000000-0000-0000-0000-<n in hex>.
func uuid(_ n: Int) -> UUID {
    UUID(uuidString: "00000000-0000-0000-0000-" + String(format: "%012x", n))!
}

let fixedDate = Date(timeIntervalSince1970: 1_700_000_000)

/// Ids handed out in order 1000, 1001, … (thread-safe).
final class IDSequence: @unchecked Sendable {
    private let lock = LockedValue(())
    private var next: Int
    init(start: Int = 1000) { next = start }
    func callAsFunction() -> UUID {
        let id = lock.withLock { _ in
            next += 1
            return next - 1
        }
        return uuid(id)
    }
}

/// Lists Inbox (1) and Work (2); items 10 "Buy milk", 11 "Write report" (done), 12 "Call mom" in Inbox,
/// 20 "Plan sprint" in Work; item 10 tagged #shop (tag 100).
func sampleState() -> AppState {
    var state = AppState(
        lists: [TodoList(id: uuid(1), name: "Inbox"), TodoList(id: uuid(2), name: "Work")],
        tags: [Tag(id: uuid(100), name: "shop")],
        items: [
            TodoItem(id: uuid(10), listID: uuid(1), title: "Buy milk", createdAt: fixedDate),
            TodoItem(id: uuid(11), listID: uuid(1), title: "Write report", isDone: true, createdAt: fixedDate),
            TodoItem(id: uuid(12), listID: uuid(1), title: "Call mom", createdAt: fixedDate),
            TodoItem(id: uuid(20), listID: uuid(2), title: "Plan sprint", createdAt: fixedDate),
        ],
        itemTags: [ItemTag(itemID: uuid(10), tagID: uuid(100))]
    )
    state.ui.currentListID = uuid(1)
    return state
}

func testEnvironment(clock: any Clock<Duration> = ContinuousClock(), events: EventChannel<AppEvent> = EventChannel()) -> AppEnvironment {
    let ids = IDSequence()
    return AppEnvironment(clock: clock, searchDebounce: .milliseconds(200), uuid: { ids() }, now: { fixedDate }, events: events)
}

extension AppState {
    /// Runs the root reducer once, ignoring the effect.
    mutating func apply(_ action: AppAction, _ environment: AppEnvironment = testEnvironment()) {
        _ = AppReducer().reduce(state: &self, action: action, environment: environment)
    }

    var titles: [String] { items.map(\.title) }
}

import Clocks

/// A `TestClock` that counts the sleeps started on it, so that a test can wait until an
/// effect is really sleeping before it advances time (otherwise, on a loaded machine, the
/// clock could be advanced before the effect starts its sleep, and the sleep would never end).
final class CountingClock: Clock, @unchecked Sendable {
    typealias Duration = Swift.Duration
    typealias Instant = TestClock<Swift.Duration>.Instant

    let inner = TestClock()
    private let lock = LockedValue(())
    private var started = 0

    var now: Instant { inner.now }
    var minimumResolution: Swift.Duration { inner.minimumResolution }

    func sleep(until deadline: Instant, tolerance: Swift.Duration?) async throws {
        lock.withLock { _ in started += 1 }
        try await inner.sleep(until: deadline, tolerance: tolerance)
    }

    /// Sleeps started so far (including cancelled ones).
    var sleepsStarted: Int { lock.withLock { _ in started } }

    /// Returns once `count` sleeps have started and one is pending on the clock.
    func waitForSleeps(_ count: Int) async {
        while sleepsStarted < count { await Task.yield() }
        // checkSuspension throws when a sleep is pending.
        while (try? await inner.checkSuspension()) != nil {}
    }

    func advance(by duration: Swift.Duration) async { await inner.advance(by: duration) }
}

/// Yields until `condition` holds (effects deliver their actions on other threads), up to
/// `limit` real seconds; returns whether it held. Never sleeps on the test clock.
@MainActor
func eventually(limit: Double = 20, _ condition: @MainActor () -> Bool) async -> Bool {
    let start = Date()
    while !condition() {
        if Date().timeIntervalSince(start) > limit { return false }
        await Task.yield()
    }
    return true
}
