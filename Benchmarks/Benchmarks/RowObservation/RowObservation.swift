import Benchmark
import BenchmarkSupport
import BenchmarkScenarios
import Foundation
import Observation
import Swidux

// Row-level observation (the "observation that scales" issue, item 5):
// a. 10,000 row observers (`store.items[id]`, one per row, re-armed after each
//    notification as SwiftUI does), one entity changed per send: observers fired per send
//    (must be exactly 1) and time per send ÷ the same send with one observer.
// b. Time per trivial send (`.bump`, changes only `ui`) after 100,000 distinct rows were
//    read once ÷ after none (target ≤ 1.5).
//
// Every figure is a ratio of medians of interleaved timings taken in the same process.

enum Metrics {
    static let ratio = BenchmarkMetric.custom("ratio ×1000")
    static let subject = BenchmarkMetric.custom("Swidux ns/send", useScalingFactor: false)
    static let baseline = BenchmarkMetric.custom("baseline ns/send", useScalingFactor: false)
    static let fired = BenchmarkMetric.custom("observers fired per send ×1000")
}

let benchmarks: @Sendable () -> Void = {
    Benchmark.defaultConfiguration = .init(
        metrics: [.wallClock],
        warmupIterations: 1,
        maxDuration: .seconds(10),
        maxIterations: 5
    )

    Benchmark(
        "Row observers: 10,000 ÷ 1, one entity changed per send",
        configuration: .init(metrics: [Metrics.ratio, Metrics.subject, Metrics.baseline, Metrics.fired])
    ) { benchmark async in
        let r = await measureRowObservers(rows: 10_000, sendsPerSample: 2_000, rounds: 9)
        benchmark.measurement(Metrics.ratio, permille(r.manyNanos / r.oneNanos))
        benchmark.measurement(Metrics.subject, Int(r.manyNanos.rounded()))
        benchmark.measurement(Metrics.baseline, Int(r.oneNanos.rounded()))
        benchmark.measurement(Metrics.fired, permille(r.firedPerSend))
        report("row-observers", ["many_ns": format(r.manyNanos), "one_ns": format(r.oneNanos),
                                 "ratio": format(r.manyNanos / r.oneNanos, 3), "fired_per_send": format(r.firedPerSend, 3)])
    }

    Benchmark(
        "Rows read: trivial send after 100,000 rows read ÷ after none",
        configuration: .init(metrics: [Metrics.ratio, Metrics.subject, Metrics.baseline])
    ) { benchmark async in
        let r = await measureRowsRead(rows: 100_000, sendsPerSample: 20_000, rounds: 9)
        benchmark.measurement(Metrics.ratio, permille(r.afterReadNanos / r.noneNanos))
        benchmark.measurement(Metrics.subject, Int(r.afterReadNanos.rounded()))
        benchmark.measurement(Metrics.baseline, Int(r.noneNanos.rounded()))
        report("rows-read", ["after_read_ns": format(r.afterReadNanos), "none_ns": format(r.noneNanos),
                             "ratio": format(r.afterReadNanos / r.noneNanos, 3)])
    }
}
