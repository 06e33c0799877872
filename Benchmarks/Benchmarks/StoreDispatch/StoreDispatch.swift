import Benchmark
import BenchmarkSupport
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

/// Re-arms a `withObservationTracking` observer after every change, as SwiftUI does.
@MainActor
final class Observer {
    var changes = 0
    private let read: @MainActor () -> Void

    init(read: @escaping @MainActor () -> Void) {
        self.read = read
        arm()
    }

    func arm() {
        withObservationTracking { read() } onChange: { [weak self] in
            // onChange runs synchronously in willSet, on the main actor here.
            MainActor.assumeIsolated { self?.changes += 1 }
        }
    }

    /// Re-arms if the last send notified.
    func rearmIfNeeded(_ seen: inout Int) {
        if changes != seen {
            seen = changes
            arm()
        }
    }
}

struct DispatchResult: Sendable {
    var storeNanos: Double
    var seedNanos: Double
    var storeNotified: Int
    var seedNotified: Int
}

@MainActor
func measureDispatch(entities: Int, sendsPerSample: Int, rounds: Int) -> DispatchResult {
    let items = EntityStore(Item.make(entities))
    let store = Store(initialState: AppState(items: items), reducer: AppReducer(), environment: ())
    let seed = HandWrittenAppStore(items: items)
    let storeObserver = Observer { _ = store.ui }
    let seedObserver = Observer { _ = seed.ui }
    var storeSeen = 0, seedSeen = 0
    let medians = interleaved(rounds: rounds, [
        {
            nanoseconds {
                for _ in 0..<sendsPerSample {
                    store.send(.bump)
                    storeObserver.rearmIfNeeded(&storeSeen)
                }
            } / Double(sendsPerSample)
        },
        {
            nanoseconds {
                for _ in 0..<sendsPerSample {
                    seed.send(.bump)
                    seedObserver.rearmIfNeeded(&seedSeen)
                }
            } / Double(sendsPerSample)
        },
    ])
    precondition(store.ui.counter == seed.ui.counter, "both stores did the same work")
    precondition(storeObserver.changes == rounds * sendsPerSample, "the Store observer saw every change")
    return DispatchResult(storeNanos: medians[0], seedNanos: medians[1],
                          storeNotified: storeObserver.changes, seedNotified: seedObserver.changes)
}

struct LargeStateResult: Sendable {
    var storeSmall: Double, storeLarge: Double
    var seedSmall: Double, seedLarge: Double
}

@MainActor
func measureLargeState(small: Int, large: Int, rounds: Int) -> LargeStateResult {
    func persistence() -> PersistenceMiddleware<AppState> {
        let persistence = PersistenceMiddleware(
            writers: [StateWriter(keyPath: \AppState.items) { _, _ in }],
            debounce: .seconds(3600)
        )
        persistence.loopWarningThreshold = .max   // thousands of sends per window are the point here
        return persistence
    }
    let smallItems = Item.make(small, seed: 1)
    let largeItems = Item.make(large, seed: 2)
    let smallStore = Store(initialState: AppState(items: EntityStore(smallItems)), reducer: AppReducer(),
                           environment: (), persistence: persistence())
    let largeStore = Store(initialState: AppState(items: EntityStore(largeItems)), reducer: AppReducer(),
                           environment: (), persistence: persistence())
    let smallSeed = HandWrittenAppStore(items: EntityStore(smallItems), persistence: persistence())
    let largeSeed = HandWrittenAppStore(items: EntityStore(largeItems), persistence: persistence())
    // `store.items` alone is an `ObservedEntities` view that observes nothing until read:
    // read the entity store itself (the whole slice), as the seed's observer does.
    let observers = [
        Observer { let _: EntityStore<Item> = smallStore.items }, Observer { let _: EntityStore<Item> = largeStore.items },
        Observer { _ = smallSeed.items }, Observer { _ = largeSeed.items },
    ]
    var seen = [0, 0, 0, 0]
    // The same 100 touched ids per store, spread over the collection.
    let smallIDs = stride(from: 0, to: small, by: small / 100).map { smallItems[$0].id }
    let largeIDs = stride(from: 0, to: large, by: large / 100).map { largeItems[$0].id }

    // The Store is O(1) per send: many sends per sample. The seed copies: fewer.
    let storeSends = 2_000, seedSends = 20
    func sample(_ k: Int, _ ids: [UUID], _ count: Int, _ send: (AppAction) -> Void) -> Double {
        nanoseconds {
            for i in 0..<count {
                send(.touch(ids[i % ids.count]))
                observers[k].rearmIfNeeded(&seen[k])
            }
        } / Double(count)
    }
    let medians = interleaved(rounds: rounds, [
        { sample(0, smallIDs, storeSends) { smallStore.send($0) } },
        { sample(1, largeIDs, storeSends) { largeStore.send($0) } },
        { sample(2, smallIDs, seedSends) { smallSeed.send($0) } },
        { sample(3, largeIDs, seedSends) { largeSeed.send($0) } },
    ])
    precondition(observers.allSatisfy { $0.changes > 0 })
    return LargeStateResult(storeSmall: medians[0], storeLarge: medians[1], seedSmall: medians[2], seedLarge: medians[3])
}

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
