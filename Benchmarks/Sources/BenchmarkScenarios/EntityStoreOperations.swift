import Foundation
import OrderedCollections
import Swidux
import BenchmarkSupport

// EntityStore operations vs `Dictionary` and `OrderedDictionary` doing the same thing.
// EntityStore also records every mutation in its change log (what persistence drains):
// that bookkeeping is part of what is measured.

public typealias Dict = [UUID: Item]
public typealias ODict = OrderedDictionary<UUID, Item>

public struct Fixture: Sendable {
    public let items: [Item]
    public let shuffledIDs: [UUID]
    public let entityStore: EntityStore<Item>
    public let dictionary: Dict
    public let ordered: ODict
    /// Random (from, to) pairs for `move`.
    public let moves: [(Int, Int)]

    public init(size: Int) {
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
public struct Operation: Sendable {
    public let name: String
    public let entityStore: @Sendable (Fixture) -> Double
    public let dictionary: (@Sendable (Fixture) -> Double)?
    public let ordered: @Sendable (Fixture) -> Double
    /// Above this size the OrderedDictionary variant is skipped (quadratic: too slow to run).
    public var orderedMaxSize = Int.max
}


@inline(never)
func measureMutation<T>(_ make: () -> T, _ body: (inout T) -> Void) -> Double {
    var value = make()
    let ns = nanoseconds { body(&value) }
    keepAlive(value)
    return ns
}

/// A uniquely referenced copy of an EntityStore (forces its storage to be copied now).
func unique(_ store: EntityStore<Item>) -> EntityStore<Item> { EntityStore(store.values) }
func unique(_ d: Dict) -> Dict { var c = Dict(minimumCapacity: d.count); for (k, v) in d { c[k] = v }; return c }
func unique(_ d: ODict) -> ODict { ODict(uniqueKeysWithValues: d.elements.map { ($0.key, $0.value) }) }

public let operations: [Operation] = [
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
        entityStore: { f in nanoseconds { var sum = 0; for id in f.shuffledIDs { sum &+= f.entityStore[id]!.count }; keepAlive(sum) } },
        dictionary: { f in nanoseconds { var sum = 0; for id in f.shuffledIDs { sum &+= f.dictionary[id]!.count }; keepAlive(sum) } },
        ordered: { f in nanoseconds { var sum = 0; for id in f.shuffledIDs { sum &+= f.ordered[id]!.count }; keepAlive(sum) } }
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
        dictionary: { f in nanoseconds { keepAlive(f.dictionary.values.sorted { $0.count < $1.count }) } },
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

public let sizes = [1_000, 10_000, 100_000]

