import Foundation
@testable import TodosApp

/// A deterministic UUID: 00000000-0000-0000-0000-<n in hex>.
func uuid(_ n: Int) -> UUID {
    UUID(uuidString: "00000000-0000-0000-0000-" + String(format: "%012x", n))!
}

let fixedDate = Date(timeIntervalSince1970: 1_700_000_000)

/// Ids handed out in order 1000, 1001, … (thread-safe).
final class IDSequence: @unchecked Sendable {
    private let lock = NSLock()
    private var next: Int
    init(start: Int = 1000) { next = start }
    func callAsFunction() -> UUID {
        lock.lock(); defer { lock.unlock() }
        next += 1
        return uuid(next - 1)
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
