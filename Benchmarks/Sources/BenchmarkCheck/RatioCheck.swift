import BenchmarkSupport

/// One ratio the speed check guards: how to measure it, its target (the figure the
/// benchmarks README aims at) and the worst value accepted before the check fails.
///
/// The limit is 1.5× the target — or 1.5× today's figure where the target is still missed,
/// so that the check catches a regression from where the code stands instead of failing on
/// a known miss. A ratio whose smaller value is better fails above its limit; one whose
/// larger value is better (rows per second against raw SQLite) fails below it.
struct RatioCheck {
    enum Better { case smaller, larger }

    let name: String
    let target: Double
    /// Today's figure where the target is missed (`nil`: the target is met).
    let missedAt: Double?
    let better: Better
    let measure: @MainActor () async throws -> Double

    /// The value past which the check fails.
    var limit: Double {
        switch better {
        case .smaller: 1.5 * max(target, missedAt ?? target)
        case .larger: min(target, missedAt ?? target) / 1.5
        }
    }

    func passes(_ ratio: Double) -> Bool {
        switch better {
        case .smaller: ratio <= limit
        case .larger: ratio >= limit
        }
    }

    /// Measures, and measures again up to `attempts` times while the ratio is past its limit:
    /// a regression shows in every run, a burst of the machine's other work in one.
    /// Returns every ratio measured and whether the best one passed.
    @MainActor
    func run(attempts: Int = 3) async throws -> (ratios: [Double], passed: Bool) {
        var ratios: [Double] = []
        for _ in 0..<attempts {
            let ratio = try await measure()
            ratios.append(ratio)
            if passes(ratio) { return (ratios, true) }
        }
        return (ratios, false)
    }
}
