import Benchmark
import BenchmarkSupport
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

/// One `withObservationTracking` observer, re-armed by the caller after a notification.
@MainActor
final class RowObserver {
    var changes = 0
    private var seen = 0
    private let read: @MainActor () -> Void

    init(read: @escaping @MainActor () -> Void) {
        self.read = read
        arm()
    }

    func arm() {
        withObservationTracking { read() } onChange: { [weak self] in
            MainActor.assumeIsolated { self?.changes += 1 }
        }
    }

    func rearmIfNeeded() {
        if changes != seen {
            seen = changes
            arm()
        }
    }
}

struct RowObserversResult: Sendable {
    var manyNanos: Double, oneNanos: Double
    var firedPerSend: Double
}

@MainActor
func measureRowObservers(rows: Int, sendsPerSample: Int, rounds: Int) -> RowObserversResult {
    let items = Item.make(rows)
    let many = Store(initialState: AppState(items: EntityStore(items)), reducer: AppReducer(), environment: ())
    let one = Store(initialState: AppState(items: EntityStore(items)), reducer: AppReducer(), environment: ())
    // The touched ids cycle through 100 rows spread over the list.
    let touched = stride(from: 0, to: rows, by: rows / 100).map { items[$0].id }
    var observers: [UUID: RowObserver] = [:]
    for item in items {
        let id = item.id
        observers[id] = RowObserver { _ = many.items[id] }
    }
    // One observer, on the row that each send changes: the same notification work per send.
    let single = RowObserver { _ = one.items[touched[0]] }
    let medians = interleaved(rounds: rounds, [
        {
            nanoseconds {
                for i in 0..<sendsPerSample {
                    let id = touched[i % touched.count]
                    many.send(.touch(id))
                    observers[id]!.rearmIfNeeded()
                }
            } / Double(sendsPerSample)
        },
        {
            nanoseconds {
                for _ in 0..<sendsPerSample {
                    one.send(.touch(touched[0]))
                    single.rearmIfNeeded()
                }
            } / Double(sendsPerSample)
        },
    ])
    let sent = rounds * sendsPerSample
    let fired = observers.values.reduce(0) { $0 + $1.changes }
    precondition(fired == sent, "exactly one row observer fired per send (\(fired) for \(sent) sends)")
    precondition(single.changes == sent, "the single observer saw every change")
    return RowObserversResult(manyNanos: medians[0], oneNanos: medians[1], firedPerSend: Double(fired) / Double(sent))
}

struct RowsReadResult: Sendable {
    var afterReadNanos: Double, noneNanos: Double
}

@MainActor
func measureRowsRead(rows: Int, sendsPerSample: Int, rounds: Int) -> RowsReadResult {
    let items = Item.make(rows)
    let read = Store(initialState: AppState(items: EntityStore(items)), reducer: AppReducer(), environment: ())
    let none = Store(initialState: AppState(items: EntityStore(items)), reducer: AppReducer(), environment: ())
    // A long list scrolled once: every row read by an observer that is never notified again.
    for item in items {
        let id = item.id
        withObservationTracking { _ = read.items[id] } onChange: {}
    }
    let readObserver = RowObserver { _ = read.ui }
    let noneObserver = RowObserver { _ = none.ui }
    let medians = interleaved(rounds: rounds, [
        {
            nanoseconds {
                for _ in 0..<sendsPerSample {
                    read.send(.bump)
                    readObserver.rearmIfNeeded()
                }
            } / Double(sendsPerSample)
        },
        {
            nanoseconds {
                for _ in 0..<sendsPerSample {
                    none.send(.bump)
                    noneObserver.rearmIfNeeded()
                }
            } / Double(sendsPerSample)
        },
    ])
    precondition(readObserver.changes == rounds * sendsPerSample && noneObserver.changes == rounds * sendsPerSample,
                 "the ui observers saw every change")
    return RowsReadResult(afterReadNanos: medians[0], noneNanos: medians[1])
}

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
