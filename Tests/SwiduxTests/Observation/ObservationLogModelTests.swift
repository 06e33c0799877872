import Foundation
import Testing
@testable import Swidux
import SwiduxTesting

/// Randomized test of the observation log that row observers and `EntityIndex` read: random
/// runs of mutations on two values of one lineage (copies that diverge and are assigned
/// back), with readers that mark what they saw at random moments. After every run, each
/// reader asks the log what changed since the fingerprint it saw, and the answer is checked
/// against the two states compared in full.
///
/// Invariant: the log answers `nil` ("anything may have changed"), or ids that include every
/// entity inserted, deleted or changed since, with `membership` set when the ids or their
/// order changed. An extra id is allowed (an extra notification); a missing one is not.
///
/// Reproducible: each run is driven by a seed. Knobs:
/// - `SWIDUX_OBSERVATION_MODEL_STEPS`: runs per seed (default 2000);
/// - `SWIDUX_OBSERVATION_MODEL_SEED`: run only this seed.
@Suite("Observation log model", .timeLimit(.minutes(1)))
struct ObservationLogModelTests {
    /// The entities of the other observation tests; a title is a number, changed by the runs.
    typealias Thing = ObservedItem

    /// What a reader saw: the fingerprint and the contents at that moment.
    struct Reader {
        var seen: ChangeFingerprint
        var contents: EntityStore<Thing>
    }

    static var steps: Int {
        ProcessInfo.processInfo.environment["SWIDUX_OBSERVATION_MODEL_STEPS"].flatMap(Int.init) ?? 2_000
    }

    static var seeds: [UInt64] {
        if let seed = ProcessInfo.processInfo.environment["SWIDUX_OBSERVATION_MODEL_SEED"].flatMap(UInt64.init) {
            return [seed]
        }
        return [0x0B5E_0001, 0x0B5E_0002, 0x0B5E_0003]
    }

    @Test(arguments: seeds)
    func theLogNeverMissesAChange(seed: UInt64) {
        var rng = SeededRandomNumberGenerator(seed: seed)
        var values = [EntityStore((0..<12).map { Thing(id: $0, title: "0") })]
        values.append(values[0])
        var readers: [Reader] = []
        var nextID = 12
        var answered = 0
        for step in 0..<Self.steps {
            let which = Int.random(in: 0..<2, using: &rng)
            // A run of mutations, as one reducer call makes.
            for _ in 0..<Int.random(in: 1...6, using: &rng) {
                mutate(&values[which], nextID: &nextID, rng: &rng)
            }
            switch Int.random(in: 0..<10, using: &rng) {
            case 0: values[1 - which] = values[which]              // a copy assigned back
            case 1: _ = values[which].changeFingerprint           // read, not marked
            case 2..<6:
                // A reader (the observing store, an index) marks what it saw.
                readers.append(Reader(seen: values[which].changeFingerprint, contents: values[which]))
                ChangeFingerprint.markSeen()
                if readers.count > 8 { readers.removeFirst() }
            default: break
            }
            for reader in readers {
                for value in values {
                    let now = value.changeFingerprint
                    guard now != reader.seen,
                          let changes = value._observationChanges.changes(since: reader.seen, current: now) else { continue }
                    answered += 1
                    let expected = Self.changedIDs(from: reader.contents, to: value)
                    let logged = Set(changes.ids)
                    #expect(expected.ids.isSubset(of: logged), "seed \(seed) step \(step): missed \(expected.ids.subtracting(logged))")
                    if expected.membership {
                        #expect(changes.membership, "seed \(seed) step \(step): membership change not logged")
                    }
                }
            }
        }
        // The log answered, rather than always falling back to "anything".
        #expect(answered > Self.steps / 4)
    }

    /// One random mutation.
    func mutate(_ store: inout EntityStore<Thing>, nextID: inout Int, rng: inout SeededRandomNumberGenerator) {
        let some = store.ids.randomElement(using: &rng)
        switch Int.random(in: 0..<100, using: &rng) {
        case 0..<30:
            if let id = some { store.modify(id) { $0.title = "\(Int.random(in: 0..<4, using: &rng))" } }
        case 30..<45:
            store[nextID] = Thing(id: nextID, title: "0")
            nextID += 1
        case 45..<55:
            // Back in, possibly after a deletion.
            let id = Int.random(in: 0..<nextID, using: &rng)
            store[id] = Thing(id: id, title: "\(Int.random(in: 0..<4, using: &rng))")
        case 55..<75:
            if let id = some { store[id] = nil }
        case 75..<80:
            let descending = Bool.random(using: &rng)
            store.sort { descending ? $0.id > $1.id : $0.id < $1.id }
        case 80..<84:
            if store.count > 1 {
                store.move(fromOffsets: [Int.random(in: 0..<store.count, using: &rng)], toOffset: Int.random(in: 0...store.count, using: &rng))
            }
        case 84..<88:
            let parity = Int.random(in: 0..<2, using: &rng)
            store.removeAll { $0.id % 5 == parity }
        case 88..<92:
            var snapshot = store
            if let id = some { snapshot.modify(id) { $0.title = Self.incremented($0.title) } }
            store.restore(from: snapshot)
        case 92:
            store.removeAll()
        default:
            // Up to 200 mutations in a row: past the log's bound on ids.
            for id in store.ids.prefix(200) { store.modify(id) { $0.title = Self.incremented($0.title) } }
        }
    }

    /// The title's number plus one.
    static func incremented(_ title: String) -> String { "\(Int(title)! + 1)" }

    /// The ids whose entity was inserted, deleted or changed from `old` to `new`, and
    /// whether the ids or their order changed.
    static func changedIDs(from old: EntityStore<Thing>, to new: EntityStore<Thing>) -> (ids: Set<Int>, membership: Bool) {
        var ids = Set<Int>()
        for thing in old where new[thing.id] != thing { ids.insert(thing.id) }
        for thing in new where old[thing.id] != thing { ids.insert(thing.id) }
        return (ids, old.ids != new.ids)
    }
}
