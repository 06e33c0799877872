import Benchmark
import BenchmarkSupport
import BenchmarkScenarios
import Foundation
import Observation
import Swidux

// 1. Dispatch: `Store.send` of a trivial action, one observer attached, vs the hand-written
//    seed-002 `AppStore` doing the same work.
// 2. Large state: one `send` changing one entity of a 1,000 vs 100,000-entity `EntityStore`,
//    observer attached, persistence on (no-op writer, 1 h debounce: no flush in the loop);
//    the same for the hand-written store.
//
// Every figure is a ratio of medians of interleaved timings taken in the same process.

enum Metrics {
    static let ratio = BenchmarkMetric.custom("ratio ×1000")
    static let subject = BenchmarkMetric.custom("Swidux ns/send", useScalingFactor: false)
    static let baseline = BenchmarkMetric.custom("baseline ns/send", useScalingFactor: false)
    static let seedRatio = BenchmarkMetric.custom("seed 100k/1k ×1000")
    static let seedLarge = BenchmarkMetric.custom("seed 100k ns/send", useScalingFactor: false)
}

let benchmarks: @Sendable () -> Void = {
    Benchmark.defaultConfiguration = .init(
        metrics: [.wallClock],
        warmupIterations: 1,
        maxDuration: .seconds(10),
        maxIterations: 5
    )

    Benchmark(
        "Dispatch: Store.send ÷ hand-written AppStore (1 observer)",
        configuration: .init(metrics: [Metrics.ratio, Metrics.subject, Metrics.baseline])
    ) { benchmark async in
        let result = await measureDispatch(entities: 1_000, sendsPerSample: 20_000, rounds: 9)
        benchmark.measurement(Metrics.ratio, permille(result.storeNanos / result.seedNanos))
        benchmark.measurement(Metrics.subject, Int(result.storeNanos.rounded()))
        benchmark.measurement(Metrics.baseline, Int(result.seedNanos.rounded()))
        report("dispatch", ["store_ns": format(result.storeNanos), "seed_ns": format(result.seedNanos),
                            "ratio": format(result.storeNanos / result.seedNanos, 3)])
    }

    Benchmark(
        "Large state: Store.send 100k ÷ 1k entities (persistence on, 1 observer)",
        configuration: .init(metrics: [Metrics.ratio, Metrics.subject, Metrics.baseline, Metrics.seedRatio, Metrics.seedLarge])
    ) { benchmark async in
        let r = await measureLargeState(small: 1_000, large: 100_000, rounds: 7)
        benchmark.measurement(Metrics.ratio, permille(r.storeLarge / r.storeSmall))
        benchmark.measurement(Metrics.subject, Int(r.storeLarge.rounded()))
        benchmark.measurement(Metrics.baseline, Int(r.storeSmall.rounded()))
        benchmark.measurement(Metrics.seedRatio, permille(r.seedLarge / r.seedSmall))
        benchmark.measurement(Metrics.seedLarge, Int(r.seedLarge.rounded()))
        report("large-state", ["store_1k_ns": format(r.storeSmall), "store_100k_ns": format(r.storeLarge),
                               "store_ratio": format(r.storeLarge / r.storeSmall, 3),
                               "seed_1k_ns": format(r.seedSmall), "seed_100k_ns": format(r.seedLarge),
                               "seed_ratio": format(r.seedLarge / r.seedSmall, 3),
                               "store_100k_vs_seed_100k": format(r.storeLarge / r.seedLarge, 4)])
    }
}
