import Foundation
import Testing
@testable import Swidux

@Suite("EntityStore", .timeLimit(.minutes(1)))
struct EntityStoreTests {
    struct Card: Identifiable, Equatable, Hashable, Sendable, Codable {
        let id: UUID
        var title: String
        var sortIndex: Int = 0
        var isArchived = false
    }

    struct Item: Identifiable, Equatable, Hashable, Sendable, Codable {
        let id: Int
        var value: Int
        var richData: String?
    }

    struct Tag: Identifiable, Equatable, Sendable {
        let id: String
        var color: String
    }

    static func items(_ ids: some Sequence<Int>) -> [Item] { ids.map { Item(id: $0, value: $0 * 10) } }

    // MARK: Seed 002, "EntityStore API"

    @Test func seedExample() {
        var cards = EntityStore<Card>()
        let card = Card(id: UUID(), title: "Old", sortIndex: 2)
        let other = Card(id: UUID(), title: "Other", sortIndex: 1, isArchived: true)

        cards[card.id] = card
        cards[other.id] = other
        #expect(cards.changes.upserted == [card.id, other.id])

        cards.modify(card.id) { $0.title = "New Title" }
        #expect(cards[card.id]?.title == "New Title")

        let cardID = card.id
        let found = cards[cardID]
        let all = cards.values
        let n = cards.count
        let has = cards.contains(cardID)
        #expect(found?.title == "New Title")
        #expect(all.map(\.id) == [card.id, other.id])
        #expect(n == 2)
        #expect(has)

        cards.sort { $0.sortIndex < $1.sortIndex }
        #expect(cards.ids == [other.id, card.id])
        #expect(cards.changes.orderChanged)

        cards.removeAll { $0.isArchived }
        #expect(cards.ids == [card.id])
        #expect(cards.changes.deleted == [other.id])

        cards[card.id] = nil
        #expect(cards.isEmpty)
        #expect(cards.changes.deleted == [other.id, card.id])
        #expect(cards.changes.upserted.isEmpty)

        let arrayFromDB = [card, other]
        cards = EntityStore(arrayFromDB)
        #expect(cards.changes.isEmpty)
        #expect(cards.values == arrayFromDB)
        cards._checkInvariants()
    }

    // MARK: Seed 002, rule 10

    @Test func mergeRule10KeepsEnrichedInMemoryValues() {
        let enriched = Item(id: 1, value: 1, richData: "loaded lazily")
        let plain = Item(id: 2, value: 2, richData: nil)
        let onlyInMemory = Item(id: 3, value: 3)
        var existingStore = EntityStore([enriched, plain, onlyInMemory])
        existingStore[4] = Item(id: 4, value: 4)   // recorded in the old store only

        let allFromDB = [Item(id: 2, value: 20), Item(id: 1, value: 1, richData: nil), Item(id: 5, value: 5)]
        var merged = EntityStore(allFromDB)
        let fingerprint = merged.changeFingerprint
        merged.merge(from: existingStore) { existing, incoming in
            existing.richData != nil && incoming.richData == nil
        }

        // id 1: the in-memory value (from `other`) is enriched, the DB one is not: kept.
        #expect(merged[1] as Item? == enriched)   // by id (`Int` ids: `as Item` would be by position)
        // id 2: neither is enriched: the DB value stays.
        #expect(merged[2] as Item? == Item(id: 2, value: 20))
        // Entities only in `other` are appended in its order.
        #expect(merged.ids == [2, 1, 5, 3, 4])
        #expect(merged.changes.isEmpty)
        #expect(merged.changeFingerprint != fingerprint)
        merged._checkInvariants()
    }

    @Test func mergeClosureReceivesOtherThenSelf() {
        var mine = EntityStore([Item(id: 1, value: 1)])
        let other = EntityStore([Item(id: 1, value: 2)])
        var calls: [(Int, Int)] = []
        mine.merge(from: other) { fromOther, inSelf in
            calls.append((fromOther.value, inSelf.value))
            return false
        }
        #expect(calls.count == 1)
        #expect(calls.first?.0 == 2 && calls.first?.1 == 1)
        #expect(mine[1]?.value == 1)

        mine.merge(from: other) { _, _ in true }
        #expect(mine[1]?.value == 2)
        #expect(mine.changes.isEmpty)
    }

    @Test func mergeWithoutEffectKeepsFingerprint() {
        var mine = EntityStore(Self.items(0..<3))
        let fingerprint = mine.changeFingerprint
        mine.merge(from: EntityStore(Self.items(0..<2))) { _, _ in true }   // same values
        mine.merge(from: EntityStore()) { _, _ in true }
        mine.merge(from: EntityStore([Item(id: 1, value: 99)])) { _, _ in false }
        #expect(mine.changeFingerprint == fingerprint)
        #expect(mine.values == Self.items(0..<3))
    }

    @Test func mergeIntoEmptyAdoptsOther() {
        var empty = EntityStore<Item>()
        let other = EntityStore(Self.items(0..<4))
        empty.merge(from: other) { _, _ in true }
        #expect(empty == other)
        #expect(empty.changes.isEmpty)
        empty[9] = Item(id: 9, value: 9)
        #expect(other.count == 4)   // copy on write
    }

    @Test func throwingMergeChangesNothing() {
        struct Boom: Error {}
        var mine = EntityStore(Self.items(0..<3))
        let before = mine
        #expect(throws: Boom.self) {
            try mine.merge(from: EntityStore([Item(id: 0, value: -1), Item(id: 7, value: 7), Item(id: 1, value: -1)])) { incoming, _ in
                if incoming.id == 1 { throw Boom() }
                return true
            }
        }
        #expect(mine.values == before.values)
        #expect(mine.changeFingerprint == before.changeFingerprint)
    }

    // MARK: Subscript

    @Test func insertAppendsAndRecordsAnUpsert() {
        var store = EntityStore<Item>()
        store[2] = Item(id: 2, value: 20)
        store[1] = Item(id: 1, value: 10)
        #expect(store.ids == [2, 1])
        #expect(store.count == 2)
        #expect(store.changes.upserted == [2, 1])
        #expect(store[1]?.value == 10)
        #expect(store[3] == nil)
        store._checkInvariants()
    }

    @Test func updateRecordsOnlyARealChange() {
        var store = EntityStore(Self.items(0..<3))
        let fingerprint = store.changeFingerprint
        store[1] = Item(id: 1, value: 10)   // the same value
        #expect(store.changes.isEmpty)
        #expect(store.changeFingerprint == fingerprint)

        store[1] = Item(id: 1, value: 11)
        #expect(store.changes.upserted == [1])
        #expect(store.changeFingerprint != fingerprint)
        #expect(store.ids == [0, 1, 2])   // keeps its place

        store[2]?.value = 21   // optional chaining through the subscript
        #expect(store[2]?.value == 21)
        #expect(store.changes.upserted == [1, 2])
    }

    @Test func deleteRecordsADeletion() {
        var store = EntityStore(Self.items(0..<4))
        let fingerprint = store.changeFingerprint
        store[9] = nil   // missing: nothing happens
        #expect(store.changes.isEmpty)
        #expect(store.changeFingerprint == fingerprint)

        store[1] = nil
        #expect(store.ids == [0, 2, 3])
        #expect(store[1] == nil)
        #expect(!store.contains(1))
        #expect(store.changes.deleted == [1])
        #expect(store.changeFingerprint != fingerprint)
        store._checkInvariants()

        store[1] = Item(id: 1, value: 1)   // re-insert appends
        #expect(store.ids == [0, 2, 3, 1])
        #expect(store.changes.upserted == [1])
        #expect(store.changes.deleted.isEmpty)
        store._checkInvariants()
    }

    // MARK: modify

    @Test func insertionsAndUpdatesAreRecordedApart() {
        var store = EntityStore(Self.items(1...3))        // hydrated: the backend has them
        store[4] = Item(id: 4, value: 0)                   // insertion
        store[4] = Item(id: 4, value: 1)                   // still an insertion
        store[1] = Item(id: 1, value: 7)                   // update
        store.modify(2) { $0.value = 8 }                   // update
        #expect(store.changes.upserted == [4, 1, 2])
        #expect(store.changes.inserted == [4])
        store[3] = nil
        store[3] = Item(id: 3, value: 9)                   // re-insertion after a deletion
        #expect(store.changes.inserted == [4, 3])
        #expect(store.changes.isInserted(3) && !store.changes.isInserted(1))
        var restored = store
        restored.resetChanges()
        restored.restore(from: EntityStore([Item(id: 1, value: 0), Item(id: 5, value: 5)]))
        #expect(restored.changes.upserted == [1, 5])
        #expect(restored.changes.inserted == [5])
    }

    @Test func changeSetKeepsTheKindOfEachUpsertThroughAMerge() {
        var older = ChangeSet<Int>()
        older.recordInsertion(1)
        older.recordUpdate(2)
        older.recordDeletion(3)
        var newer = ChangeSet<Int>()
        newer.recordUpdate(1)       // an update after an insertion stays an insertion
        newer.recordUpdate(3)       // after a deletion: a re-insertion
        newer.recordUpdate(4)
        older.merge(newer)
        #expect(older.upserted == [1, 2, 3, 4])
        #expect(older.inserted == [1, 3])
        #expect(older.orderChanged)
        older.recordDeletion(1)
        #expect(older.inserted == [3])
        var plain = ChangeSet<Int>()
        plain.recordUpsert(9)       // a plain upsert may create the row
        #expect(plain.isInserted(9))
    }

    @Test func aDeletionRecordsTheRemovedEntitysOwnID() {
        let nfc = "caf\u{E9}", nfd = "cafe\u{301}"
        #expect(nfc == nfd && Array(nfc.utf8) != Array(nfd.utf8))
        var tags = EntityStore<Tag>()
        tags[nfc] = Tag(id: nfc, color: "red")
        tags.resetChanges()
        tags[nfd] = nil
        #expect(tags.isEmpty)
        #expect(tags.changes.deleted.map { Array($0.utf8) } == [Array(nfc.utf8)])
    }

    @Test func removeUnrecordedRecordsNothingButChangesTheFingerprint() {
        var store = EntityStore(Self.items(1...3))
        let fingerprint = store.changeFingerprint
        let removed = store.removeUnrecorded([2, 9])
        #expect(removed)
        #expect(store.ids == [1, 3])
        #expect(store.changes.isEmpty)
        #expect(store.changeFingerprint != fingerprint)
        let removedAgain = store.removeUnrecorded([9])
        #expect(!removedAgain)
        store._checkInvariants()
    }

    @Test func modifyRecordsOnlyWhenTheValueChanges() {
        var store = EntityStore(Self.items(0..<3))
        let fingerprint = store.changeFingerprint

        #expect(store.modify(1) { $0.value = 10 })   // same value
        #expect(store.modify(1) { _ in })
        #expect(store.changes.isEmpty)
        #expect(store.changeFingerprint == fingerprint)

        #expect(store.modify(1) { $0.value += 1 })
        #expect(store[1]?.value == 11)
        #expect(store.changes.upserted == [1])
        #expect(store.changeFingerprint != fingerprint)
    }

    @Test func modifyMissingReturnsFalse() {
        var store = EntityStore(Self.items(0..<2))
        var called = false
        #expect(!store.modify(5) { _ in called = true })
        #expect(!called)
        #expect(store.changes.isEmpty)
    }

    @Test func throwingModifyChangesNothing() {
        struct Boom: Error {}
        var store = EntityStore(Self.items(0..<2))
        let fingerprint = store.changeFingerprint
        #expect(throws: Boom.self) {
            try store.modify(1) { item in
                item.value = 99
                throw Boom()
            }
        }
        #expect(store[1]?.value == 10)
        #expect(store.changes.isEmpty)
        #expect(store.changeFingerprint == fingerprint)
    }

    // MARK: Hydration

    @Test func hydrationRecordsNothingAndKeepsFirstPlaceLastValue() {
        let store = EntityStore([Item(id: 1, value: 1), Item(id: 2, value: 2), Item(id: 1, value: 3)])
        #expect(store.ids == [1, 2])
        #expect(store[1]?.value == 3)
        #expect(store.changes.isEmpty)

        let literal: EntityStore<Item> = [Item(id: 5, value: 5), Item(id: 4, value: 4)]
        #expect(literal.ids == [5, 4])
        #expect(literal.changes.isEmpty)
        store._checkInvariants()
    }

    // MARK: Bulk operations

    @Test func sortRecordsAReorderOnlyWhenTheOrderChanges() {
        var store = EntityStore([Item(id: 1, value: 3), Item(id: 2, value: 1), Item(id: 3, value: 2)])
        var fingerprint = store.changeFingerprint
        store.sort { $0.value < $1.value }
        #expect(store.ids == [2, 3, 1])
        #expect(store.changes.orderChanged)
        #expect(store.changes.count == 0)
        #expect(store.changeFingerprint != fingerprint)
        store._checkInvariants()

        _ = store.drainChanges()
        fingerprint = store.changeFingerprint
        store.sort { $0.value < $1.value }   // already sorted
        #expect(store.changes.isEmpty)
        #expect(store.changeFingerprint == fingerprint)
    }

    @Test func sortAfterDeletes() {
        var store = EntityStore(Self.items(0..<10))
        for id in [1, 4, 5, 8] { store[id] = nil }
        store.sort { $0.id > $1.id }
        #expect(store.ids == [9, 7, 6, 3, 2, 0])
        #expect(store.map(\.id) == [9, 7, 6, 3, 2, 0])
        store._checkInvariants()
    }

    @Test func removeAllWhereRecordsEachDeletionInOrder() {
        var store = EntityStore(Self.items(0..<10))
        let fingerprint = store.changeFingerprint
        store.removeAll { $0.id > 100 }
        #expect(store.changes.isEmpty)
        #expect(store.changeFingerprint == fingerprint)

        store.removeAll { $0.id % 3 == 0 }
        #expect(store.ids == [1, 2, 4, 5, 7, 8])
        #expect(store.changes.deleted == [0, 3, 6, 9])
        #expect(store.changeFingerprint != fingerprint)
        #expect(Array(store.indices) == [0, 1, 2, 3, 4, 5])
        #expect(store[position: 4].id == 7)   // by position
        store._checkInvariants()

        store.removeAll { _ in true }
        #expect(store.isEmpty)
        #expect(store.changes.deleted == [0, 3, 6, 9, 1, 2, 4, 5, 7, 8])
        store._checkInvariants()
    }

    @Test func throwingRemoveAllChangesNothing() {
        struct Boom: Error {}
        var store = EntityStore(Self.items(0..<5))
        #expect(throws: Boom.self) {
            try store.removeAll { item in
                if item.id == 3 { throw Boom() }
                return item.id < 3
            }
        }
        #expect(store.ids == [0, 1, 2, 3, 4])
        #expect(store.changes.isEmpty)
    }

    @Test func removeAllRemovesEverything() {
        var store = EntityStore(Self.items(0..<4))
        store[1] = nil
        _ = store.drainChanges()
        store.removeAll()
        #expect(store.isEmpty)
        #expect(store.changes.deleted == [0, 2, 3])
        store._checkInvariants()

        let fingerprint = store.changeFingerprint
        store.removeAll()
        #expect(store.changeFingerprint == fingerprint)
    }

    @Test(arguments: [
        // (offsets, destination, expected) on [0, 1, 2, 3, 4]
        ([0], 3, [1, 2, 0, 3, 4]),
        ([4], 0, [4, 0, 1, 2, 3]),
        ([1, 3], 5, [0, 2, 4, 1, 3]),
        ([1, 3], 0, [1, 3, 0, 2, 4]),
        ([0, 4], 2, [1, 0, 4, 2, 3]),
        ([2], 2, [0, 1, 2, 3, 4]),
        ([2], 3, [0, 1, 2, 3, 4]),
        ([0, 1, 2, 3, 4], 3, [0, 1, 2, 3, 4]),
        ([3], 99, [0, 1, 2, 4, 3]),
    ])
    func moveFollowsSwiftUIOnMove(offsets: [Int], destination: Int, expected: [Int]) {
        var store = EntityStore(Self.items(0..<5))
        let fingerprint = store.changeFingerprint
        store.move(fromOffsets: IndexSet(offsets), toOffset: destination)
        #expect(store.ids == expected)
        #expect(store.map(\.id) == expected)
        if expected == [0, 1, 2, 3, 4] {
            #expect(store.changes.isEmpty)
            #expect(store.changeFingerprint == fingerprint)
        } else {
            #expect(store.changes.orderChanged)
            #expect(store.changes.count == 0)
            #expect(store.changeFingerprint != fingerprint)
        }
        store._checkInvariants()
    }

    @Test func moveAfterDeletesUsesPositions() {
        var store = EntityStore(Self.items(0..<8))
        store[0] = nil
        store[3] = nil
        // [1, 2, 4, 5, 6, 7]
        store.move(fromOffsets: [0], toOffset: 4)
        #expect(store.ids == [2, 4, 5, 1, 6, 7])
        store._checkInvariants()
        #expect(store[position: 3] == Item(id: 1, value: 10))   // by position
    }

    // MARK: restore

    @Test func restoreRecordsExactlyTheDifferences() {
        var store = EntityStore(Self.items(0..<5))
        var target = store
        target[1] = nil
        target[2]?.value = -2
        target[7] = Item(id: 7, value: 7)
        target.resetChanges()

        store.restore(from: target)
        #expect(store == target)
        #expect(store.values == target.values)
        #expect(store.changes.deleted == [1])
        #expect(store.changes.upserted == [2, 7])
        #expect(!store.changes.orderChanged)
        store._checkInvariants()
    }

    @Test func restoreIdenticalContentsRecordsNothing() {
        var store = EntityStore(Self.items(0..<5))
        let fingerprint = store.changeFingerprint
        store.restore(from: store)
        store.restore(from: EntityStore(Self.items(0..<5)))
        #expect(store.changes.isEmpty)
        #expect(store.changeFingerprint == fingerprint)
    }

    @Test func restoreRecordsAReorderWhenTheOrderDiffers() {
        var store = EntityStore(Self.items(0..<4))
        store.restore(from: EntityStore(Self.items([1, 0, 2, 3])))
        #expect(store.changes.orderChanged)
        #expect(store.changes.count == 0)
        #expect(store.ids == [1, 0, 2, 3])

        // A new entity anywhere but at the end is a reorder.
        var other = EntityStore(Self.items(0..<4))
        other.restore(from: EntityStore(Self.items([0, 9, 1, 2, 3])))
        #expect(other.changes.orderChanged)
        #expect(other.changes.upserted == [9])

        // Deleting and appending is not.
        var third = EntityStore(Self.items(0..<4))
        third.restore(from: EntityStore(Self.items([0, 2, 3, 8, 9])))
        #expect(!third.changes.orderChanged)
        #expect(third.changes.deleted == [1])
        #expect(third.changes.upserted == [8, 9])
    }

    @Test func restoreUndoesADelete() {
        var state = EntityStore(Self.items(0..<3))
        let snapshot = state
        state[1] = nil
        _ = state.drainChanges()
        state.restore(from: snapshot)
        #expect(state.ids == [0, 1, 2])
        #expect(state.changes.upserted == [1])
        #expect(state.changes.orderChanged)   // 1 comes back in the middle, not at the end
    }

    // MARK: Change log

    @Test func drainChangesReturnsAndForgets() {
        var store = EntityStore<Item>()
        store[1] = Item(id: 1, value: 1)
        store[2] = Item(id: 2, value: 2)
        store[2] = nil
        let drained = store.drainChanges()
        #expect(drained.upserted == [1])
        #expect(drained.deleted == [2])
        #expect(store.changes.isEmpty)

        store[1] = Item(id: 1, value: 5)
        store.resetChanges()
        #expect(store.changes.isEmpty)
        #expect(store[1]?.value == 5)
    }

    @Test func equalityIgnoresTheChangeLog() {
        var a = EntityStore(Self.items(0..<3))
        var b = EntityStore<Item>()
        for item in Self.items(0..<3) { b[item.id] = item }
        #expect(a == b)
        #expect(a.changeFingerprint != b.changeFingerprint)
        a[1] = nil
        #expect(a != b)
        a[1] = Item(id: 1, value: 10)
        #expect(a != b)   // order differs
        b.move(fromOffsets: [1], toOffset: 3)
        #expect(a == b)
        #expect(a.hashValue == b.hashValue)
        #expect(Set([a, b]).count == 1)
    }

    @Test func copiesAreIndependent() {
        var original = EntityStore(Self.items(0..<6))
        original[2] = nil
        let copy = original
        original[3] = nil
        original[4]?.value = 0
        original.modify(5) { $0.value = 0 }
        original.sort { $0.id > $1.id }
        #expect(copy.ids == [0, 1, 3, 4, 5])
        #expect(copy[4]?.value == 40)
        #expect(copy[5]?.value == 50)
        #expect(copy[position: 2].id == 3)   // by position
        copy._checkInvariants()
        original._checkInvariants()
    }

    @Test func fingerprintsAreEqualOnlyForEqualContents() {
        var store = EntityStore(Self.items(0..<3))
        var seen: Set<ChangeFingerprint> = [store.changeFingerprint]
        store[3] = Item(id: 3, value: 3)
        seen.insert(store.changeFingerprint)
        store[0] = nil
        seen.insert(store.changeFingerprint)
        store.modify(1) { $0.value = 0 }
        seen.insert(store.changeFingerprint)
        store.move(fromOffsets: [0], toOffset: 3)
        seen.insert(store.changeFingerprint)
        #expect(seen.count == 5)
        let copy = store
        #expect(copy.changeFingerprint == store.changeFingerprint)
    }

    // MARK: Id types

    @Test func stringIDs() {
        var tags = EntityStore<Tag>()
        tags["red"] = Tag(id: "red", color: "#f00")
        tags["blue"] = Tag(id: "blue", color: "#00f")
        tags.modify("red") { $0.color = "#e00" }
        tags["blue"] = nil
        #expect(tags.ids == ["red"])
        #expect(tags["red"]?.color == "#e00")
        #expect(tags.changes.upserted == ["red"])
        #expect(tags.changes.deleted == ["blue"])
        tags._checkInvariants()
    }

    @Test func uuidIDs() {
        let cards = (0..<20).map { Card(id: UUID(), title: "card \($0)", sortIndex: 20 - $0) }
        var store = EntityStore(cards)
        for card in cards where card.sortIndex % 2 == 0 { store[card.id] = nil }
        #expect(store.count == 10)
        #expect(store.values == cards.filter { $0.sortIndex % 2 != 0 })
        store.sort { $0.sortIndex < $1.sortIndex }
        #expect(store.first?.sortIndex == 1)
        store._checkInvariants()
    }

    // MARK: RandomAccessCollection

    @Test func intIDsPreferTheLookupByID() {
        var store = EntityStore(Self.items([5, 2, 7]))
        store[2] = nil
        #expect(store[7] == Item(id: 7, value: 70))   // by id
        #expect(store[0] == nil)                      // by id: no entity 0
        #expect(store[position: 1].id == 7)           // by position: labelled
        #expect(store[position: 1] == Item(id: 7, value: 70))
        #expect(store[5] as Item? == Item(id: 5, value: 50))
    }

    @Test func randomAccessCollectionAfterDeletes() {
        var store = EntityStore(Self.items(0..<10))
        for id in [0, 3, 4, 9] { store[id] = nil }
        let expected = [1, 2, 5, 6, 7, 8]
        #expect(store.count == expected.count)
        #expect(store.startIndex == 0)
        #expect(store.endIndex == expected.count)
        #expect(store.indices == 0..<expected.count)
        #expect(store.indices.map { store[position: $0].id } == expected)
        #expect(store.map(\.id) == expected)
        #expect(store.reversed().map(\.id) == expected.reversed())
        #expect(store.first?.id == 1)
        #expect(store.last?.id == 8)
        #expect(store.firstIndex { $0.id == 6 } == 3)
        #expect(store[2..<4].map(\.id) == [5, 6])
        #expect(store.index(store.startIndex, offsetBy: 4) == 4)
        #expect(store.distance(from: 1, to: 5) == 4)
        #expect(store.dropFirst(2).map(\.id) == [5, 6, 7, 8])
        store._checkInvariants()

        // Appending after the position map was built keeps positions right.
        store[20] = Item(id: 20, value: 200)
        store[21] = Item(id: 21, value: 210)
        #expect(store.indices.map { store[position: $0].id } == expected + [20, 21])
        store._checkInvariants()

        // Updating in place too.
        store[5] = Item(id: 5, value: -5)
        #expect(store[position: 2] == Item(id: 5, value: -5))   // by position
        store._checkInvariants()
    }

    @Test func positionalReadsFromManyTasks() async {
        var store = EntityStore(Self.items(0..<2_000))
        for id in stride(from: 1, to: 2_000, by: 3) { store[id] = nil }
        let shared = store
        let expected = shared.values.map(\.id)
        let results = await withTaskGroup(of: Bool.self) { group in
            for task in 0..<8 {
                group.addTask {
                    let copy = shared
                    let ids = stride(from: task, to: copy.count, by: 1).map { copy[position: $0].id }
                    return ids == Array(expected[task...])
                }
            }
            var all: [Bool] = []
            for await result in group { all.append(result) }
            return all
        }
        #expect(results == Array(repeating: true, count: 8))
        shared._checkInvariants()
    }

    // MARK: Codable and descriptions

    @Test func codableRoundTripRecordsNothing() throws {
        var store = EntityStore(Self.items(0..<4))
        store[1] = nil
        store[2] = Item(id: 2, value: 2, richData: "rich")
        let data = try JSONEncoder().encode(store)
        let array = try JSONDecoder().decode([Item].self, from: data)
        #expect(array == store.values)
        let decoded = try JSONDecoder().decode(EntityStore<Item>.self, from: data)
        #expect(decoded == store)
        #expect(decoded.changes.isEmpty)
        decoded._checkInvariants()
    }

    @Test func descriptions() {
        var store = EntityStore([Item(id: 1, value: 1)])
        store[2] = Item(id: 2, value: 2)
        #expect(store.description == "EntityStore(\([Item(id: 1, value: 1), Item(id: 2, value: 2)]))")
        #expect(store.debugDescription.contains("count: 2, changes: 1"))
    }

    // MARK: Compaction

    @Test func compactionKeepsTombstonesBelowTheLiveCount() {
        var store = EntityStore(Self.items(0..<100))
        for id in stride(from: 0, to: 100, by: 2) {
            store[id] = nil
            store._checkInvariants()
            #expect(store._tombstoneCount <= store.count)
        }
        #expect(store.ids == Array(stride(from: 1, to: 100, by: 2)))
        // Deleting the last entity pops trailing tombstones at once.
        store[99] = nil
        store[97] = nil
        store._checkInvariants()
        #expect(store.last?.id == 95)
    }
}
