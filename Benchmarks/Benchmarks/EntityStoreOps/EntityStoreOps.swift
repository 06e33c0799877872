import Benchmark
import BenchmarkSupport
import Foundation
import OrderedCollections
import Swidux

// 3. EntityStore operations at 1k / 10k / 100k entities vs `Dictionary` and
//    `OrderedDictionary` doing the same thing. Each figure is a ratio of medians of
//    interleaved timings (EntityStore, Dictionary, OrderedDictionary) in one process.
//
// EntityStore also records every mutation in its change log (what persistence drains):
// that bookkeeping is part of what is measured.

typealias Dict = [UUID: Item]
typealias ODict = OrderedDictionary<UUID, Item>

struct Fixture: Sendable {
    let items: [Item]
    let shuffledIDs: [UUID]
    let entityStore: EntityStore<Item>
    let dictionary: Dict
    let ordered: ODict
    /// Random (from, to) pairs for `move`.
    let moves: [(Int, Int)]

    init(size: Int) {
        items = Item.make(size, seed: UInt64(size))
        var generator = SplitMix64(seed: 7)
        shuffledIDs = items.map(\.id).shuffled(using: &generator)
        entityStore = EntityStore(items)
        dictionary = Dictionary(uniqueKeysWithValues: items.map { ($0.id, $0) })
        ordered = ODict(uniqueKeysWithValues: items.map { ($0.id, $0) })
        moves = (0..<100).map { _ in (Int(generator.next() % UInt64(size)), Int(generator.next() % UInt64(size + 1))) }
    }
}

/// One operation: how to time it on each structure (nil: no equivalent).
struct Operation: Sendable {
    let name: String
    let entityStore: @Sendable (Fixture) -> Double
    let dictionary: (@Sendable (Fixture) -> Double)?
    let ordered: @Sendable (Fixture) -> Double
    /// Above this size the OrderedDictionary variant is skipped (quadratic: too slow to run).
    var orderedMaxSize = Int.max
}


@inline(never)
func measureMutation<T>(_ make: () -> T, _ body: (inout T) -> Void) -> Double {
    var value = make()
    let ns = nanoseconds { body(&value) }
    blackHole(value)
    return ns
}

/// A uniquely referenced copy of an EntityStore (forces its storage to be copied now).
func unique(_ store: EntityStore<Item>) -> EntityStore<Item> { EntityStore(store.values) }
func unique(_ d: Dict) -> Dict { var c = Dict(minimumCapacity: d.count); for (k, v) in d { c[k] = v }; return c }
func unique(_ d: ODict) -> ODict { ODict(uniqueKeysWithValues: d.elements.map { ($0.key, $0.value) }) }

let operations: [Operation] = [
    Operation(
        name: "insert",
        entityStore: { f in measureMutation({ EntityStore<Item>() }) { s in for item in f.items { s[item.id] = item } } },
        dictionary: { f in measureMutation({ Dict() }) { d in for item in f.items { d[item.id] = item } } },
        ordered: { f in measureMutation({ ODict() }) { d in for item in f.items { d[item.id] = item } } }
    ),
    Operation(
        name: "modify",
        entityStore: { f in measureMutation({ unique(f.entityStore) }) { s in for id in f.shuffledIDs { s.modify(id) { $0.count &+= 1 } } } },
        dictionary: { f in measureMutation({ unique(f.dictionary) }) { d in for id in f.shuffledIDs { d[id]?.count &+= 1 } } },
        ordered: { f in measureMutation({ unique(f.ordered) }) { d in for id in f.shuffledIDs { d[id]?.count &+= 1 } } }
    ),
    Operation(
        name: "lookup",
        entityStore: { f in nanoseconds { var sum = 0; for id in f.shuffledIDs { sum &+= f.entityStore[id]!.count }; blackHole(sum) } },
        dictionary: { f in nanoseconds { var sum = 0; for id in f.shuffledIDs { sum &+= f.dictionary[id]!.count }; blackHole(sum) } },
        ordered: { f in nanoseconds { var sum = 0; for id in f.shuffledIDs { sum &+= f.ordered[id]!.count }; blackHole(sum) } }
    ),
    Operation(
        name: "delete all (random order)",
        entityStore: { f in measureMutation({ unique(f.entityStore) }) { s in for id in f.shuffledIDs { s[id] = nil } } },
        dictionary: { f in measureMutation({ unique(f.dictionary) }) { d in for id in f.shuffledIDs { d[id] = nil } } },
        ordered: { f in measureMutation({ unique(f.ordered) }) { d in for id in f.shuffledIDs { d[id] = nil } } },
        // OrderedDictionary removes by shifting its array and re-indexing: O(n) per delete,
        // O(n²) for all; 100k would take minutes.
        orderedMaxSize: 10_000
    ),
    Operation(
        name: "removeAll(where:) half",
        entityStore: { f in measureMutation({ unique(f.entityStore) }) { s in s.removeAll { $0.count & 1 == 0 } } },
        dictionary: { f in measureMutation({ unique(f.dictionary) }) { d in d = d.filter { $0.value.count & 1 != 0 } } },
        ordered: { f in measureMutation({ unique(f.ordered) }) { d in d.removeAll { $0.value.count & 1 == 0 } } }
    ),
    Operation(
        name: "sort",
        entityStore: { f in measureMutation({ unique(f.entityStore) }) { s in s.sort { $0.count < $1.count } } },
        // Dictionary has no order: its equivalent is sorting its values into an array.
        dictionary: { f in nanoseconds { blackHole(f.dictionary.values.sorted { $0.count < $1.count }) } },
        ordered: { f in measureMutation({ unique(f.ordered) }) { d in d.sort { $0.value.count < $1.value.count } } }
    ),
    Operation(
        name: "move ×100",
        entityStore: { f in
            measureMutation({ unique(f.entityStore) }) { s in
                for (from, to) in f.moves { s.move(fromOffsets: IndexSet(integer: from), toOffset: to) }
            }
        },
        dictionary: nil,
        ordered: { f in
            measureMutation({ unique(f.ordered) }) { d in
                for (from, to) in f.moves {
                    // SwiftUI onMove semantics: land before the element at `to` (before removal).
                    let element = d.remove(at: from)
                    let destination = to > from ? to - 1 : to
                    d.updateValue(element.value, forKey: element.key, insertingAt: destination)
                }
            }
        }
    ),
]

let sizes = [1_000, 10_000, 100_000]

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
