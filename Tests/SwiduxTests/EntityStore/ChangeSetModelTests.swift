import Foundation
import Testing
@testable import Swidux
import SwiduxTesting

/// Model-based randomized test of `ChangeSet` on its own: random records, merges, set-style
/// edits and resets applied to a `ChangeSet` and to a reference that keeps the rules in their
/// most direct form (a sequence number per record, sorted on read), compared after every step.
///
/// Reproducible: `SWIDUX_MODEL_STEPS` (default 3000) steps per seed, `SWIDUX_MODEL_SEED` to
/// run the one seed a failure prints.
@Suite("ChangeSet model", .timeLimit(.minutes(1)))
struct ChangeSetModelTests {
    /// The rules, directly: id → sequence of its latest record, plus the insertions.
    struct Reference: Equatable {
        var upserts: [Int: Int] = [:]
        var deletions: [Int: Int] = [:]
        var insertions: Set<Int> = []
        var orderChanged = false
        var sequence = 0

        mutating func insert(_ id: Int) {
            if deletions.removeValue(forKey: id) != nil { orderChanged = true }
            if upserts[id] == nil { sequence += 1; upserts[id] = sequence }
            insertions.insert(id)
        }

        mutating func update(_ id: Int) {
            if deletions[id] != nil {
                insert(id)
            } else if upserts[id] == nil {
                sequence += 1
                upserts[id] = sequence
            }
        }

        mutating func delete(_ id: Int) {
            if upserts.removeValue(forKey: id) != nil { insertions.remove(id) }
            sequence += 1
            deletions[id] = sequence
        }

        var upserted: [Int] { upserts.sorted { $0.value < $1.value }.map(\.key) }
        var deleted: [Int] { deletions.sorted { $0.value < $1.value }.map(\.key) }
        var inserted: [Int] { upserted.filter { insertions.contains($0) } }

        mutating func merge(_ newer: Reference) {
            for id in newer.deleted { delete(id) }
            for id in newer.upserted { if newer.insertions.contains(id) { insert(id) } else { update(id) } }
            if newer.orderChanged { orderChanged = true }
        }
    }

    static var steps: Int {
        ProcessInfo.processInfo.environment["SWIDUX_MODEL_STEPS"].flatMap(Int.init) ?? 3_000
    }

    static var seeds: [UInt64] {
        if let seed = ProcessInfo.processInfo.environment["SWIDUX_MODEL_SEED"].flatMap(UInt64.init) { return [seed] }
        return [0xC5E7_0001, 0xC5E7_0002, 0xC5E7_0003]
    }

    /// The mismatch between `changes` and `model`, if any.
    static func mismatch(_ changes: ChangeSet<Int>, _ model: Reference, ids: Range<Int>) -> String? {
        if changes.upserted != model.upserted { return "upserted \(changes.upserted) != \(model.upserted)" }
        if changes.deleted != model.deleted { return "deleted \(changes.deleted) != \(model.deleted)" }
        if changes.inserted != model.inserted { return "inserted \(changes.inserted) != \(model.inserted)" }
        if changes.orderChanged != model.orderChanged { return "orderChanged \(changes.orderChanged)" }
        if changes.count != model.upserts.count + model.deletions.count { return "count \(changes.count)" }
        if changes.isEmpty != (model.upserts.isEmpty && model.deletions.isEmpty && !model.orderChanged) {
            return "isEmpty \(changes.isEmpty)"
        }
        if changes.upserts != Set(model.upserts.keys) { return "upserts set \(changes.upserts)" }
        if changes.deletions != Set(model.deletions.keys) { return "deletions set \(changes.deletions)" }
        for id in ids {
            if changes.isUpserted(id) != (model.upserts[id] != nil) { return "isUpserted(\(id))" }
            if changes.isDeleted(id) != (model.deletions[id] != nil) { return "isDeleted(\(id))" }
            if changes.isInserted(id) != model.insertions.contains(id) { return "isInserted(\(id))" }
        }
        return nil
    }

    @Test(arguments: seeds)
    func randomRecordsMatchTheReference(seed: UInt64) {
        var rng = SeededRandomNumberGenerator(seed: seed)
        // Few ids: the same ids are recorded again and again (stale entries, compactions).
        let ids = 0..<[6, 30, 300][Int(seed % 3)]
        var changes = ChangeSet<Int>()
        var model = Reference()
        var older: [(ChangeSet<Int>, Reference)] = []
        for step in 0..<Self.steps {
            let id = Int.random(in: ids, using: &rng)
            let op: String
            switch Int.random(in: 0..<100, using: &rng) {
            case 0..<30: op = "insert \(id)"; changes.recordInsertion(id); model.insert(id)
            case 30..<60: op = "update \(id)"; changes.recordUpdate(id); model.update(id)
            case 60..<88: op = "delete \(id)"; changes.recordDeletion(id); model.delete(id)
            case 88..<90: op = "reorder"; changes.recordReorder(); model.orderChanged = true
            case 90..<93:
                op = "merge"
                if let (newer, newerModel) = older.randomElement(using: &rng) {
                    changes.merge(newer)
                    model.merge(newerModel)
                }
            case 93..<95:
                op = "set-style edit"
                var set = changes.upserts
                if Bool.random(using: &rng) { set.insert(id) } else { set.remove(id) }
                changes.replaceUpserts(with: set)   // what the deprecated `upserts` setter does
                for gone in model.upserts.keys where !set.contains(gone) {
                    model.upserts[gone] = nil
                    model.insertions.remove(gone)
                }
                for new in set.sorted() where model.upserts[new] == nil { model.insert(new) }
            case 95..<97:
                op = "equality"
                let copy = changes
                #expect(copy == changes)
                var other = changes
                other.recordDeletion(ids.upperBound)   // an id never recorded otherwise
                #expect(other != changes)
            default:
                op = "removeAll"
                older.append((changes, model))
                if older.count > 4 { older.removeFirst() }
                changes.removeAll()
                model = Reference()
            }
            if let problem = Self.mismatch(changes, model, ids: ids) {
                Issue.record("ChangeSet model mismatch: seed \(seed) (SWIDUX_MODEL_SEED=\(seed)), step \(step), after \(op): \(problem)")
                return
            }
        }
    }

    @Test func staleEntriesAreCompactedAway() {
        var changes = ChangeSet<Int>()
        for round in 0..<1_000 {
            changes.recordDeletion(round % 3)
            changes.recordInsertion(round % 3)
        }
        #expect(changes.count == 3)
        #expect(changes.journal.count <= 3 + 2 * 17)
        #expect(changes.upserted.count == 3)
        #expect(changes.orderChanged)
    }

    @Test func equalityComparesKinds() {
        var inserted = ChangeSet<Int>()
        inserted.recordInsertion(1)
        var updated = ChangeSet<Int>()
        updated.recordUpdate(1)
        #expect(inserted != updated)
        updated.recordInsertion(1)
        #expect(inserted == updated)
    }
}
