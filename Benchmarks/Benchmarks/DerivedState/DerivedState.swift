import Benchmark
import BenchmarkSupport
import Foundation
import Observation
import Swidux

// Derived state (the "todos at 100,000 items" issue, item 1 and 2):
// a. A `Derived` value (a filter over the entity store) read through the store after an
//    action that changed none of its inputs (`.bump` changes `ui.counter`), with one
//    observer re-armed as a view would be: time per send + read, 100k ÷ 1k entities
//    (target ≤ 1.5: the read is O(1), it does not recompute).
// b. The same read after an action that changed one entity (an input): the memoized
//    recomputation, one filter pass, at 100k and 1k; the absolute time at 100k is what a key
//    that changes an item pays for each derived list (the app's budget is 4 ms per key).
//
// Ratios are medians of interleaved timings taken in the same process.

/// Titles "Item 0" … : the filter keeps those starting with "Item 1" (about a tenth).
func makeDerived() -> Derived<AppState, [Item]> {
    Derived(\AppState.items, \.ui.filter) { items, prefix in items.filter { $0.title.hasPrefix(prefix) } }
}

@MainActor
final class DerivedReader {
    let store: Store<AppState, AppAction>
    let derived = makeDerived()
    let ids: [UUID]
    private(set) var changes = 0
    private var seen = 0
    var lastCount = 0

    init(rows: Int) {
        let items = Item.make(rows)
        ids = stride(from: 0, to: rows, by: max(rows / 100, 1)).map { items[$0].id }
        var ui = UIState()
        ui.filter = "Item 1"
        store = Store(initialState: AppState(items: EntityStore(items), ui: ui), reducer: AppReducer(), environment: ())
        arm()
    }

    func arm() {
        withObservationTracking { lastCount = store[derived].count } onChange: { [weak self] in
            MainActor.assumeIsolated { self?.changes += 1 }
        }
    }

    /// Re-reads after a notification, as a view does.
    func rearmIfNeeded() {
        if changes != seen {
            seen = changes
            arm()
        }
    }
}

struct DerivedResult: Sendable {
    var largeNanos: Double, smallNanos: Double
}

@MainActor
func measureUnrelated(large: Int, small: Int, sendsPerSample: Int, rounds: Int) -> DerivedResult {
    let big = DerivedReader(rows: large), little = DerivedReader(rows: small)
    let medians = interleaved(rounds: rounds, [big, little].map { reader in
        {
            nanoseconds {
                for _ in 0..<sendsPerSample {
                    reader.store.send(.bump)
                    reader.rearmIfNeeded()
                    reader.lastCount = reader.store[reader.derived].count
                }
            } / Double(sendsPerSample)
        }
    })
    precondition(big.changes == 0 && little.changes == 0, "an unrelated action notified a reader of the derived value")
    precondition(big.derived.computationCount == 1 && little.derived.computationCount == 1, "an unrelated action recomputed")
    return DerivedResult(largeNanos: medians[0], smallNanos: medians[1])
}

@MainActor
func measureRecompute(large: Int, small: Int, sendsPerSample: Int, rounds: Int) -> DerivedResult {
    let big = DerivedReader(rows: large), little = DerivedReader(rows: small)
    var touches = 0
    let medians = interleaved(rounds: rounds, [big, little].map { reader in
        {
            nanoseconds {
                for i in 0..<sendsPerSample {
                    reader.store.send(.touch(reader.ids[i % reader.ids.count]))
                    reader.rearmIfNeeded()
                }
            } / Double(sendsPerSample)
        }
    })
    touches = rounds * sendsPerSample
    precondition(big.changes == touches && little.changes == touches, "every change notified the reader once")
    precondition(big.derived.computationCount == touches + 1, "one recomputation per change")
    return DerivedResult(largeNanos: medians[0], smallNanos: medians[1])
}

enum Metrics {
    static let ratio = BenchmarkMetric.custom("ratio ×1000")
    static let large = BenchmarkMetric.custom("100k ns/key", useScalingFactor: false)
    static let small = BenchmarkMetric.custom("1k ns/key", useScalingFactor: false)
}

let benchmarks: @Sendable () -> Void = {
    Benchmark.defaultConfiguration = .init(
        metrics: [.wallClock],
        warmupIterations: 1,
        maxDuration: .seconds(10),
        maxIterations: 5
    )

    Benchmark(
        "Derived read after an unrelated send, 100k ÷ 1k entities",
        configuration: .init(metrics: [Metrics.ratio, Metrics.large, Metrics.small])
    ) { benchmark async in
        let r = await measureUnrelated(large: 100_000, small: 1_000, sendsPerSample: 20_000, rounds: 9)
        benchmark.measurement(Metrics.ratio, permille(r.largeNanos / r.smallNanos))
        benchmark.measurement(Metrics.large, Int(r.largeNanos.rounded()))
        benchmark.measurement(Metrics.small, Int(r.smallNanos.rounded()))
        report("derived-unrelated", ["large_ns": format(r.largeNanos), "small_ns": format(r.smallNanos),
                                     "ratio": format(r.largeNanos / r.smallNanos, 3)])
    }

    Benchmark(
        "Derived recomputation after one entity changed, 100k and 1k entities",
        configuration: .init(metrics: [Metrics.ratio, Metrics.large, Metrics.small])
    ) { benchmark async in
        let r = await measureRecompute(large: 100_000, small: 1_000, sendsPerSample: 20, rounds: 9)
        benchmark.measurement(Metrics.ratio, permille(r.largeNanos / r.smallNanos))
        benchmark.measurement(Metrics.large, Int(r.largeNanos.rounded()))
        benchmark.measurement(Metrics.small, Int(r.smallNanos.rounded()))
        report("derived-recompute", ["large_ns": format(r.largeNanos), "small_ns": format(r.smallNanos),
                                     "ratio": format(r.largeNanos / r.smallNanos, 3)])
    }
}
