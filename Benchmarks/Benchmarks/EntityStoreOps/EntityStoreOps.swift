import Benchmark
import BenchmarkSupport
import BenchmarkScenarios
import Foundation
import OrderedCollections
import Swidux

// 3. EntityStore operations at 1k / 10k / 100k entities vs `Dictionary` and
//    `OrderedDictionary` doing the same thing. Each figure is a ratio of medians of
//    interleaved timings (EntityStore, Dictionary, OrderedDictionary) in one process.
//
// EntityStore also records every mutation in its change log (what persistence drains):
// that bookkeeping is part of what is measured.

let benchmarks: @Sendable () -> Void = {
    Benchmark.defaultConfiguration = .init(
        metrics: [.wallClock],
        warmupIterations: 0,
        maxDuration: .seconds(20),
        maxIterations: 2
    )
    let vsDictionary = BenchmarkMetric.custom("÷ Dictionary ×1000")
    let vsOrdered = BenchmarkMetric.custom("÷ OrderedDictionary ×1000")
    let perElement = BenchmarkMetric.custom("EntityStore ns/element", useScalingFactor: false)

    for operation in operations {
        for size in sizes {
            Benchmark(
                "EntityStore \(operation.name) \(size / 1000)k",
                configuration: .init(metrics: [vsDictionary, vsOrdered, perElement])
            ) { benchmark in
                let fixture = Fixture(size: size)
                // Short timings get more rounds: a 1k operation takes about 0.1 ms, and on a
                // shared machine a few of them land on a busy moment.
                let rounds = size >= 100_000 ? 9 : size >= 10_000 ? 15 : 41
                let withOrdered = size <= operation.orderedMaxSize
                var variants: [() -> Double] = [{ operation.entityStore(fixture) }]
                if let dictionary = operation.dictionary { variants.append { dictionary(fixture) } }
                if withOrdered { variants.append { operation.ordered(fixture) } }
                let m = interleaved(rounds: rounds, variants)
                let elements = operation.name.hasPrefix("move") ? 100 : size
                benchmark.measurement(perElement, Int((m[0] / Double(elements)).rounded()))
                var fields: [(String, String)] = [("entitystore_ns_per_element", format(m[0] / Double(elements)))]
                if operation.dictionary != nil {
                    benchmark.measurement(vsDictionary, permille(m[0] / m[1]))
                    fields.append(("vs_dictionary", format(m[0] / m[1], 3)))
                }
                if withOrdered {
                    benchmark.measurement(vsOrdered, permille(m[0] / m[m.count - 1]))
                    fields.append(("vs_ordered", format(m[0] / m[m.count - 1], 3)))
                } else {
                    fields.append(("vs_ordered", "skipped"))
                }
                print("RESULT entitystore \(operation.name) \(size): " + fields.map { "\($0.0)=\($0.1)" }.joined(separator: " "))
                fflush(nil)
            }
        }
    }
}
