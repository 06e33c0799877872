import Foundation
import Testing
@testable import Swidux

/// An entity store records its changes without hashing the id a second time: the change
/// set finds an id's entry through the stamp of the entity's slot. Counted, not timed.
@Suite("ChangeSet recording by slot")
struct ChangeSetSlotTests {
    /// An id that counts how many times it is hashed (per test: each test uses its own tag).
    struct CountedID: Hashable, Sendable, CustomStringConvertible {
        static let hashes = LockedValue<[Int: Int]>([:])
        let tag: Int
        let value: Int
        func hash(into hasher: inout Hasher) {
            Self.hashes.withLock { $0[tag, default: 0] += 1 }
            hasher.combine(value)
        }
        static func == (lhs: CountedID, rhs: CountedID) -> Bool { lhs.value == rhs.value }
        var description: String { "\(value)" }
        static func count(_ tag: Int) -> Int { hashes.withLock { $0[tag] ?? 0 } }
    }

    struct Row: Identifiable, Equatable, Sendable {
        let id: CountedID
        var value: Int
    }

    static func rows(_ n: Int, tag: Int) -> [Row] { (0..<n).map { Row(id: CountedID(tag: tag, value: $0), value: 0) } }

    /// A store of `rows` with nothing recorded (its construction's records drained).
    static func drainedStore(_ rows: [Row]) -> EntityStore<Row> {
        var store = EntityStore(rows)
        _ = store.drainChanges()
        return store
    }

    @Test func modifyingAndDeletingHashEachIDOnce() {
        let tag = 1
        var store = Self.drainedStore(Self.rows(200, tag: tag))
        var before = CountedID.count(tag)
        for row in Self.rows(200, tag: tag) { store.modify(row.id) { $0.value += 1 } }
        // One hash per modify (the store's index), none for the change set.
        #expect(CountedID.count(tag) - before == 200)
        before = CountedID.count(tag)
        for row in Self.rows(200, tag: tag) { store[row.id]?.value += 1 }
        // Read (one hash) and write back (one hash); the change set adds none.
        #expect(CountedID.count(tag) - before == 400)
        before = CountedID.count(tag)
        for row in Self.rows(200, tag: tag).reversed() { store[row.id] = nil }
        // Removing from a Dictionary rehashes some neighbours; the change set adds nothing:
        // as many hashes as the same removals from a Dictionary (up to where those fall).
        let storeHashes = CountedID.count(tag) - before
        var dictionary = Dictionary(uniqueKeysWithValues: Self.rows(200, tag: 100 + tag).map { ($0.id, $0) })
        for row in Self.rows(200, tag: 100 + tag).reversed() { dictionary[row.id]?.value += 1 }
        let dictionaryBefore = CountedID.count(100 + tag)
        for row in Self.rows(200, tag: 100 + tag).reversed() { dictionary[row.id] = nil }
        let dictionaryHashes = CountedID.count(100 + tag) - dictionaryBefore
        #expect(storeHashes < 200 + dictionaryHashes / 2, "\(storeHashes) hashes, Dictionary \(dictionaryHashes)")
        store._checkInvariants()
        let changes = store.drainChanges()
        #expect(changes.deleted.map(\.value) == Array((0..<200).reversed()))
        #expect(changes.upserted.isEmpty)
    }

    @Test func insertingHashesEachIDOnce() {
        let tag = 2
        var store = EntityStore<Row>()
        let before = CountedID.count(tag)
        for row in Self.rows(300, tag: tag) { store[row.id] = row }
        // The index's growth rehashes, as a Dictionary's does; the change set adds nothing.
        var dictionary: [CountedID: Row] = [:]
        let dictionaryBefore = CountedID.count(100 + tag)
        for row in Self.rows(300, tag: 100 + tag) { dictionary[row.id] = row }
        let dictionaryHashes = CountedID.count(100 + tag) - dictionaryBefore
        #expect(CountedID.count(tag) - before == dictionaryHashes)
        store._checkInvariants()
        #expect(store.changes.inserted.count == 300)
    }

    @Test func reInsertionAfterDeletionIsFoundThroughTheDeletions() {
        let tag = 3
        var store = Self.drainedStore(Self.rows(10, tag: tag))
        let rows = Self.rows(10, tag: tag)
        store.modify(rows[3].id) { $0.value = 7 }
        store[rows[3].id] = nil
        store[rows[5].id] = nil
        store[rows[3].id] = Row(id: rows[3].id, value: 9)
        store._checkInvariants()
        let changes = store.changes
        #expect(changes.upserted.map(\.value) == [3])
        #expect(changes.inserted.map(\.value) == [3])
        #expect(changes.deleted.map(\.value) == [5])
        #expect(changes.orderChanged)
        #expect(changes.count == 2)
        #expect(changes.isInserted(rows[3].id))
        #expect(changes.isDeleted(rows[5].id))
    }

    @Test func stampsSurviveCompactionAndCopies() {
        let tag = 4
        let rows = Self.rows(1_000, tag: tag)
        var store = Self.drainedStore(rows)
        let kept = rows.filter { $0.id.value % 4 == 0 || $0.id.value >= 990 }
        for row in kept { store.modify(row.id) { $0.value = 1 } }
        let copy = store
        // Deleting three quarters compacts the slots: the kept entities move.
        for row in rows where row.id.value % 4 != 0 && row.id.value < 990 { store[row.id] = nil }
        #expect(store._compactionCount > 0)
        store._checkInvariants()
        let before = CountedID.count(tag)
        for row in kept { store.modify(row.id) { $0.value = 2 } }
        #expect(CountedID.count(tag) - before == kept.count, "already recorded ids are found by their moved stamps")
        store._checkInvariants()
        #expect(store.changes.upserted.count == kept.count)
        #expect(store.changes.deleted.count == 1_000 - kept.count)
        // The copy kept its own storage and change set.
        #expect(copy.count == 1_000)
        #expect(copy.changes.upserted.count == kept.count)
        #expect(copy.changes.deleted.isEmpty)
        var copy2 = copy
        copy2.modify(rows[1].id) { $0.value = 5 }
        copy2.modify(rows[0].id) { $0.value = 5 }
        copy2._checkInvariants()
        #expect(copy2.changes.upserted.count == kept.count + 1)
    }

    @Test func reorderingFallsBackToTheIndexAndStaysExact() {
        let tag = 5
        let rows = Self.rows(50, tag: tag)
        var store = Self.drainedStore(rows)
        for row in rows.prefix(10) { store.modify(row.id) { $0.value = 1 } }
        store.sort { $0.id.value > $1.id.value }
        store._checkInvariants()
        for row in rows.prefix(20) { store.modify(row.id) { $0.value = 2 } }
        store._checkInvariants()
        #expect(store.changes.upserted.count == 20)
        #expect(store.changes.orderChanged)
        // After a drain, recording is by slot again.
        _ = store.drainChanges()
        let before = CountedID.count(tag)
        for row in rows.prefix(20) { store.modify(row.id) { $0.value = 3 } }
        #expect(CountedID.count(tag) - before == 20)
        store._checkInvariants()
    }

    @Test func afterAMoveTheChangeSetHashesEachRecordOnce() {
        let tag = 7
        let rows = Self.rows(50, tag: tag)
        var store = Self.drainedStore(rows)
        store.modify(rows[0].id) { $0.value = 1 }
        // A move carries no stamps: the change set finds its entries by id from then on.
        store.move(fromOffsets: IndexSet(integer: 0), toOffset: 10)
        #expect(!store._changes.bySlot)
        let before = CountedID.count(tag)
        for row in rows[10..<30] { store.modify(row.id) { $0.value = 2 } }
        // The store's index (one hash), then the change set's, which costs what inserting
        // into a dictionary does (its growth rehashes too): the slot hint needs no hash more.
        var places: [CountedID: Int] = [:]
        places.reserveCapacity(1)
        places[CountedID(tag: 100 + tag, value: -1)] = 0
        let dictionaryBefore = CountedID.count(100 + tag)
        for row in Self.rows(50, tag: 100 + tag)[10..<30] { places[row.id] = 0 }
        let dictionaryHashes = CountedID.count(100 + tag) - dictionaryBefore
        #expect(CountedID.count(tag) - before == 20 + dictionaryHashes)
        store._checkInvariants()
        for row in rows[10..<30] {
            let entry = store._changes.journal[store._changes.places[row.id]!]
            #expect(entry.slot == store.storage.index[row.id]!)
        }
    }

    @Test func aChangeSetTakenFromAStoreAnswersByID() {
        let tag = 6
        let rows = Self.rows(20, tag: tag)
        var store = Self.drainedStore(rows)
        store.modify(rows[1].id) { $0.value = 1 }
        store[rows[2].id] = nil
        var changes = store.changes
        #expect(changes.isUpserted(rows[1].id) && !changes.isInserted(rows[1].id))
        #expect(changes.isDeleted(rows[2].id))
        #expect(!changes.isUpserted(rows[3].id))
        changes.recordUpdate(rows[4].id)
        changes.recordDeletion(rows[1].id)
        #expect(changes.deleted.map(\.value) == [2, 1])
        #expect(changes.upserted.map(\.value) == [4])
        var byHand = ChangeSet<CountedID>()
        byHand.recordDeletion(rows[2].id)
        byHand.recordUpdate(rows[1].id)
        #expect(byHand == store.changes)
        #expect(store.changes == byHand)
    }
}
