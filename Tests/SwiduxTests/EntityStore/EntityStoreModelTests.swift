import Foundation
import Testing
@testable import Swidux
import SwiduxTesting

/// Model-based randomized test: random operations applied to an `EntityStore` and to a
/// trivially correct reference (an array and a hand-computed change log), compared after
/// every step.
///
/// Reproducible: each run is driven by a seed. Knobs:
/// - `SWIDUX_MODEL_STEPS`: steps per seed (default 3000);
/// - `SWIDUX_MODEL_SEED`: run only this seed (the one a failure prints).
@Suite("EntityStore model", .timeLimit(.minutes(1)))
struct EntityStoreModelTests {
    struct Thing: Identifiable, Equatable, Hashable, Sendable, Codable {
        let id: Int
        var value: Int
        var rich: Bool
    }

    typealias SplitMix64 = SeededRandomNumberGenerator

    /// The change log the store should have: the `ChangeSet` rules, with arrays.
    struct ReferenceLog: Equatable, CustomStringConvertible {
        var upserted: [Int] = []
        var deleted: [Int] = []
        var orderChanged = false

        /// Ids of `upserted` that are insertions (absent before), not updates.
        var insertedIDs: Set<Int> = []
        var inserted: [Int] { upserted.filter { insertedIDs.contains($0) } }

        /// `inserted`: the id was absent from the store before (else an update).
        mutating func upsert(_ id: Int, inserted: Bool) {
            // A re-insertion of a deleted id moves it to the end: the order changed.
            if deleted.contains(id) { orderChanged = true; insertedIDs.insert(id) }
            if inserted { insertedIDs.insert(id) }
            deleted.removeAll { $0 == id }
            if !upserted.contains(id) { upserted.append(id) }
        }

        mutating func delete(_ id: Int) {
            insertedIDs.remove(id)
            upserted.removeAll { $0 == id }
            deleted.removeAll { $0 == id }
            deleted.append(id)
        }

        var description: String { "upserted \(upserted) (inserted \(inserted)), deleted \(deleted), orderChanged \(orderChanged)" }
    }

    /// The reference: an array in order, searched linearly.
    struct Reference {
        var entities: [Thing] = []
        var log = ReferenceLog()

        func position(of id: Int) -> Int? { entities.firstIndex { $0.id == id } }
        var ids: [Int] { entities.map(\.id) }

        /// Hydration: first place, last value.
        static func hydrated(_ things: [Thing]) -> [Thing] {
            var result: [Thing] = []
            for thing in things {
                if let i = result.firstIndex(where: { $0.id == thing.id }) { result[i] = thing } else { result.append(thing) }
            }
            return result
        }
    }

    static var steps: Int {
        ProcessInfo.processInfo.environment["SWIDUX_MODEL_STEPS"].flatMap(Int.init) ?? 3_000
    }

    static var seeds: [UInt64] {
        if let seed = ProcessInfo.processInfo.environment["SWIDUX_MODEL_SEED"].flatMap(UInt64.init) { return [seed] }
        return [0x5EED_0001, 0x5EED_0002, 0x5EED_0003]
    }

    @Test(arguments: seeds)
    func randomOperationsMatchTheReference(seed: UInt64) throws {
        var runner = Runner(seed: seed)
        for step in 0..<Self.steps {
            let op = runner.step()
            if let problem = runner.verify() {
                Issue.record("""
                    EntityStore model mismatch: seed \(seed) (SWIDUX_MODEL_SEED=\(seed)), step \(step), after \(op): \(problem)
                    store: \(runner.store.ids) \(runner.store.changes.upserted)/\(runner.store.changes.deleted)/\(runner.store.changes.orderChanged)
                    model: \(runner.model.ids) \(runner.model.log)
                    """)
                return
            }
        }
    }

    struct Runner {
        let seed: UInt64
        var rng: SplitMix64
        var store = EntityStore<Thing>()
        var model = Reference()
        /// Earlier states, for restores (undo-like) and copy-on-write checks.
        var history: [(store: EntityStore<Thing>, entities: [Thing])] = []
        let idRange: Int
        /// Whether to read positions on the store itself (building its position map).
        var checkPositions = true
        /// A mismatch found while applying the last operation.
        var problem: String?

        init(seed: UInt64) {
            self.seed = seed
            rng = SplitMix64(seed: seed)
            idRange = [8, 40, 200][Int(seed % 3)]
        }

        mutating func int(_ range: Range<Int>) -> Int { Int.random(in: range, using: &rng) }
        mutating func chance(_ percent: Int) -> Bool { int(0..<100) < percent }

        mutating func randomThing(id: Int) -> Thing { Thing(id: id, value: int(0..<6), rich: chance(30)) }

        mutating func existingID() -> Int? { model.entities.randomElement(using: &rng)?.id }

        mutating func missingID() -> Int? {
            let missing = (0..<idRange).filter { model.position(of: $0) == nil }
            return missing.randomElement(using: &rng)
        }

        /// A store near the current one: some entities dropped, some changed, some new
        /// ones (anywhere), sometimes reordered.
        mutating func perturbed() -> [Thing] {
            var result = model.entities
            if chance(50) { result.removeAll { _ in int(0..<4) == 0 } }
            for i in result.indices where chance(20) { result[i].value = int(0..<6) }
            for _ in 0..<int(0..<4) {
                let id = int(0..<idRange)
                guard !result.contains(where: { $0.id == id }) else { continue }
                let thing = randomThing(id: id)
                if chance(50) { result.append(thing) } else { result.insert(thing, at: int(0..<(result.count + 1))) }
            }
            if result.count > 1, chance(25) {
                result.swapAt(int(0..<result.count), int(0..<result.count))
            }
            if chance(5) { result.shuffle(using: &rng) }
            return result
        }

        /// Applies one random operation to both and returns its description.
        mutating func step() -> String {
            let before = model.entities
            let fingerprint = store.changeFingerprint
            // Sometimes keep a copy to check that mutations do not leak into it.
            let copy: (store: EntityStore<Thing>, entities: [Thing])? = chance(20) ? (store, model.entities) : nil
            if let copy, chance(50), !copy.store.isEmpty { _ = copy.store[position: copy.store.count / 2] }
            if chance(10) { history.append((store, model.entities)); if history.count > 8 { history.removeFirst() } }
            checkPositions = chance(60)
            problem = nil
            var checksFingerprint = true

            let op: String
            switch int(0..<100) {
            case 0..<22:
                if let id = missingID() {
                    let thing = randomThing(id: id)
                    op = "insert \(thing)"
                    store[id] = thing
                    model.entities.append(thing)
                    model.log.upsert(id, inserted: true)
                } else {
                    op = "insert (full)"
                }
            case 22..<32:
                guard let id = existingID() else { op = "update (empty)"; break }
                let i = model.position(of: id)!
                var thing = model.entities[i]
                if chance(70) { thing.value = int(0..<6) }
                op = "update \(thing)"
                store[id] = thing
                if model.entities[i] != thing {
                    model.entities[i] = thing
                    model.log.upsert(id, inserted: false)
                }
            case 32..<42:
                let id = chance(90) ? existingID() ?? 0 : missingID() ?? 0
                let newValue = int(0..<6)
                let flip = chance(30)
                op = "modify \(id) value=\(newValue) flip=\(flip)"
                let found = store.modify(id) { thing in
                    thing.value = newValue
                    if flip { thing.rich.toggle() }
                }
                if let i = model.position(of: id) {
                    var thing = model.entities[i]
                    thing.value = newValue
                    if flip { thing.rich.toggle() }
                    if thing != model.entities[i] {
                        model.entities[i] = thing
                        model.log.upsert(id, inserted: false)
                    }
                    if !found { problem = "modify returned false" }
                } else if found {
                    problem = "modify returned true for a missing id"
                }
            case 42..<58:
                let id = chance(90) ? existingID() ?? 0 : missingID() ?? 0
                op = "delete \(id)"
                store[id] = nil
                if let i = model.position(of: id) {
                    model.entities.remove(at: i)
                    model.log.delete(id)
                }
            case 58..<61:
                // A burst of deletes, to drive compactions.
                let victims = model.entities.filter { _ in chance(60) }.map(\.id).shuffled(using: &rng)
                op = "delete burst \(victims)"
                for id in victims {
                    store[id] = nil
                    model.entities.removeAll { $0.id == id }
                    model.log.delete(id)
                }
            case 61..<64:
                let byID = chance(30)
                op = byID ? "sort by id descending" : "sort by value"
                if byID { store.sort { $0.id > $1.id } } else { store.sort { $0.value < $1.value } }
                let oldIDs = model.ids
                if byID { model.entities.sort { $0.id > $1.id } } else { model.entities.sort { $0.value < $1.value } }
                if model.ids != oldIDs { model.log.orderChanged = true }
            case 64..<67:
                // A few (removed one by one) or many (the survivors indexed anew).
                let value = int(0..<6)
                let many = chance(50)
                let doomed: (Thing) -> Bool = { many ? $0.value <= value : $0.value == value }
                op = many ? "removeAll(where: value <= \(value))" : "removeAll(where: value == \(value))"
                store.removeAll(where: doomed)
                for thing in model.entities where doomed(thing) { model.log.delete(thing.id) }
                model.entities.removeAll(where: doomed)
            case 67:
                op = "removeAll()"
                store.removeAll()
                for thing in model.entities { model.log.delete(thing.id) }
                model.entities.removeAll()
            case 68..<75:
                guard !model.entities.isEmpty else { op = "move (empty)"; break }
                let count = model.entities.count
                var offsets = IndexSet()
                if chance(20) {
                    let a = int(0..<count), b = int(0..<count)
                    offsets.insert(integersIn: Swift.min(a, b)...Swift.max(a, b))
                } else {
                    for _ in 0..<int(1..<4) { offsets.insert(int(0..<count)) }
                }
                let destination = chance(3) ? int(-2..<(count + 4)) : int(0..<(count + 1))
                op = "move \(Array(offsets)) to \(destination)"
                store.move(fromOffsets: offsets, toOffset: destination)
                let clamped = Swift.min(Swift.max(destination, 0), count)
                var head: [Thing] = [], moving: [Thing] = [], tail: [Thing] = []
                for (i, thing) in model.entities.enumerated() {
                    if offsets.contains(i) { moving.append(thing) } else if i < clamped { head.append(thing) } else { tail.append(thing) }
                }
                let moved = head + moving + tail
                if moved.map(\.id) != model.ids { model.log.orderChanged = true }
                model.entities = moved
            case 75..<83:
                let other: EntityStore<Thing>
                let otherEntities: [Thing]
                if !history.isEmpty, chance(30) {
                    let past = history[int(0..<history.count)]
                    other = past.store
                    otherEntities = past.entities
                    op = "restore from history \(past.entities.map(\.id))"
                } else if chance(5) {
                    other = store
                    otherEntities = model.entities
                    op = "restore from itself"
                } else {
                    otherEntities = perturbed()
                    other = EntityStore(otherEntities)
                    op = "restore from \(otherEntities)"
                }
                store.restore(from: other)
                applyRestore(otherEntities)
            case 83..<89:
                let otherEntities = perturbed()
                let rule = int(0..<4)
                op = "merge rule \(rule) from \(otherEntities)"
                let prefer: @Sendable (Thing, Thing) -> Bool = { fromOther, inSelf in
                    switch rule {
                    case 0: true
                    case 1: false
                    case 2: fromOther.rich && !inSelf.rich
                    default: fromOther.value > inSelf.value
                    }
                }
                store.merge(from: EntityStore(otherEntities), preferExisting: prefer)
                for thing in otherEntities {
                    if let i = model.position(of: thing.id) {
                        if prefer(thing, model.entities[i]) { model.entities[i] = thing }
                    } else {
                        model.entities.append(thing)
                    }
                }
            case 89..<94:
                op = "drainChanges"
                let drained = store.drainChanges()
                if drained.upserted != model.log.upserted || drained.deleted != model.log.deleted || drained.orderChanged != model.log.orderChanged {
                    problem = "drained \(drained.upserted)/\(drained.deleted)/\(drained.orderChanged), expected \(model.log)"
                }
                model.log = ReferenceLog()
            case 94:
                op = "resetChanges"
                store.resetChanges()
                model.log = ReferenceLog()
            case 95..<97:
                var things = (0..<int(0..<12)).map { _ in randomThing(id: int(0..<idRange)) }
                if chance(50) { things = model.entities + things }
                op = "hydrate \(things)"
                store = EntityStore(things)
                model.entities = Reference.hydrated(things)
                model.log = ReferenceLog()
                checksFingerprint = false
            case 97:
                op = "codable round trip"
                do {
                    store = try JSONDecoder().decode(EntityStore<Thing>.self, from: JSONEncoder().encode(store))
                } catch {
                    problem = "threw \(error)"
                }
                model.log = ReferenceLog()
                checksFingerprint = false
            default:
                // A burst of inserts.
                let ids = (0..<int(1..<20)).map { _ in int(0..<idRange) }
                op = "insert burst \(ids)"
                // An id can come twice and end with its first value: check each write.
                checksFingerprint = false
                for id in ids {
                    let thing = randomThing(id: id)
                    let fingerprint = store.changeFingerprint
                    store[id] = thing
                    var changed = true
                    if let i = model.position(of: id) {
                        changed = model.entities[i] != thing
                        if changed { model.entities[i] = thing; model.log.upsert(id, inserted: false) }
                    } else {
                        model.entities.append(thing)
                        model.log.upsert(id, inserted: true)
                    }
                    if problem == nil, changed == (store.changeFingerprint == fingerprint) {
                        problem = "write of \(thing) in the burst: " + (changed ? "changed but kept the fingerprint" : "changed nothing but got a new fingerprint")
                    }
                }
            }

            if checksFingerprint, problem == nil {
                let changed = model.entities != before
                if changed == (store.changeFingerprint == fingerprint) {
                    problem = changed ? "contents changed but the fingerprint did not" : "contents unchanged but the fingerprint changed"
                }
            }
            if let copy, problem == nil, copy.store.values != copy.entities || copy.store.count != copy.entities.count {
                problem = "a copy taken before the operation changed"
            }
            return op
        }

        mutating func applyRestore(_ target: [Thing]) {
            let targetIDs = Set(target.map(\.id))
            let currentIDs = Set(model.ids)
            for thing in model.entities where !targetIDs.contains(thing.id) { model.log.delete(thing.id) }
            for thing in target {
                if let i = model.position(of: thing.id), model.entities[i] == thing { continue }
                model.log.upsert(thing.id, inserted: model.position(of: thing.id) == nil)
            }
            let survivors = model.ids.filter { targetIDs.contains($0) }
            let newcomers = target.map(\.id).filter { !currentIDs.contains($0) }
            if target.map(\.id) != survivors + newcomers { model.log.orderChanged = true }
            model.entities = target
        }

        /// `nil` when the store matches the reference, else what differs.
        func verify() -> String? {
            if let problem { return problem }
            if let violation = store._invariantViolation() { return violation }
            if store.count != model.entities.count { return "count \(store.count) != \(model.entities.count)" }
            if store.isEmpty != model.entities.isEmpty { return "isEmpty differs" }
            if store.values != model.entities { return "values differ" }
            if store.ids != model.ids { return "ids differ" }
            if Array(store) != model.entities { return "iteration differs" }
            if store != EntityStore(model.entities) { return "== with a rebuilt store is false" }
            // Positional access, on the store itself or, so that the next operation also
            // meets a store whose position map was never built, on a copy of its layout.
            let probe = checkPositions ? store : EntityStore(storage: store.storage.copy())
            for position in model.entities.indices where probe[position: position] != model.entities[position] {
                return "position \(position): \(probe[position: position]) != \(model.entities[position])"
            }
            if probe.first != model.entities.first || probe.last != model.entities.last { return "first or last differs" }
            for id in 0..<idRange {
                let expected = model.position(of: id).map { model.entities[$0] }
                if (store[id] as Thing?) != expected { return "lookup of \(id): \(String(describing: store[id] as Thing?)) != \(String(describing: expected))" }
                if store.contains(id) != (expected != nil) { return "contains(\(id)) differs" }
            }
            let changes = store.changes
            if changes.upserted != model.log.upserted { return "upserted \(changes.upserted) != \(model.log.upserted)" }
            if changes.deleted != model.log.deleted { return "deleted \(changes.deleted) != \(model.log.deleted)" }
            if changes.orderChanged != model.log.orderChanged { return "orderChanged \(changes.orderChanged) != \(model.log.orderChanged)" }
            if changes.inserted != model.log.inserted { return "inserted \(changes.inserted) != \(model.log.inserted)" }
            return nil
        }
    }
}
