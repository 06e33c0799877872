/// How long a test helper has waited, counting each pause between two checks as at most
/// ``maximumPause``: a test process starved of the CPU (other tests hogging the cooperative
/// threads on a loaded machine) does not use up its wait while nothing could run.
///
/// The helpers still wait at least their timeout in wall-clock time; they may wait longer
/// on a machine too loaded to let the awaited work run at all.
///
/// ```swift
/// var budget = WaitBudget(.seconds(10))
/// while !done, !budget.isSpent {
///     await Task.yield()
///     budget.tick()
/// }
/// ```
struct WaitBudget {
    /// The longest stretch of one pause that counts against the budget.
    static let maximumPause: Duration = .milliseconds(100)

    let limit: Duration
    private(set) var spent: Duration = .zero
    private var last = ContinuousClock.now

    init(_ limit: Duration) {
        self.limit = limit
    }

    /// `true` once the counted waiting reached the limit.
    var isSpent: Bool { spent >= limit }

    /// Counts the time since the previous tick (at most ``maximumPause``).
    mutating func tick() {
        let now = ContinuousClock.now
        spent += min(now - last, Self.maximumPause)
        last = now
    }
}
