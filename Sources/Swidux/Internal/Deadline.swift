/// A wake-up time on a clock, fixed when it is created: sleeping until it wakes at the
/// same instant however late the sleeping task starts. (A task that starts after a test
/// clock was advanced past the deadline does not sleep at all.)
struct Deadline: Sendable {
    let sleep: @Sendable () async throws -> Void

    init(after duration: Duration, on clock: any Clock<Duration>) {
        func make<C: Clock<Duration>>(_ clock: C) -> @Sendable () async throws -> Void {
            let deadline = clock.now.advanced(by: duration)
            return {
                // Already due (a test clock advanced past it): run now, do not wait for the next tick.
                if clock.now >= deadline { try Task.checkCancellation(); return }
                try await clock.sleep(until: deadline, tolerance: nil)
            }
        }
        sleep = make(clock)
    }
}
