import Foundation
import Testing
import Swidux

// Code written for Swidux 1.0 (see the article "Migrating from Swidux 1.0") compiles and
// behaves as documented: each compatibility spelling, used the way 1.0's users wrote it.
// The tests that call deprecated API are deprecated themselves, so the build stays free of
// warnings; a removed or renamed spelling fails to compile here.

private struct Card: Identifiable, Equatable, Sendable {
    let id: UUID
    var title: String
}

private struct CardsState: Sendable {
    var cards = EntityStore<Card>()
}

/// What a 1.0-style writer closure received, flush by flush.
private final class Persisted: @unchecked Sendable {
    private let lock = LockedValue(())
    private var flushes: [(writes: [String], deletions: Set<UUID>)] = []
    private var failuresLeft = 0

    func failNext(_ count: Int) { lock.withLock { _ in failuresLeft = count } }

    func record(_ writes: [Card], _ deletions: Set<UUID>) throws {
        try lock.withLock { _ in
            if failuresLeft > 0 { failuresLeft -= 1; throw Failure() }
            flushes.append((writes.map(\.title), deletions))
        }
    }

    var all: [(writes: [String], deletions: Set<UUID>)] { lock.withLock { _ in flushes } }

    struct Failure: Error {}
}

@MainActor
@Suite("Swidux 1.0 compatibility")
struct Swidux1CompatibilityTests {
    @Test @available(*, deprecated, message: "exercises ChangeSet() and the settable sets")
    func changeSetWithoutGenericArgumentAndSettableSets() {
        var changes = ChangeSet()
        let kept = UUID(), dropped = UUID(), gone = UUID()
        #expect(changes.isEmpty)
        changes.upserts.insert(kept)
        changes.upserts.insert(dropped)
        changes.deletions.insert(gone)
        #expect(changes.upserts == [kept, dropped])
        #expect(changes.deletions == [gone])
        #expect(changes.isInserted(kept))   // a plain upsert, as recordUpsert(_:)

        changes.upserts.remove(dropped)       // forgets the record
        #expect(changes.upserted == [kept])
        #expect(changes.count == 2)

        changes.upserts.insert(gone)          // a later record wins: upserted again
        #expect(changes.deletions.isEmpty)
        #expect(changes.upserted == [kept, gone])

        var recorded = ChangeSet<UUID>()
        recorded.recordUpsert(kept)
        recorded.recordUpsert(gone)
        recorded.recordReorder()              // an upsert after a deletion moves the entity
        #expect(changes == recorded)
    }

    @Test func entityStoreChangesReadAsSets() {
        let card = Card(id: UUID(), title: "A")
        var store = EntityStore<Card>()
        store[card.id] = card
        #expect(store.changes.upserts.contains(card.id))
        store[card.id] = nil
        #expect(!store.changes.upserts.contains(card.id))
        #expect(store.changes.deletions == [card.id])

        // Naming the id type picks the generic init, not the deprecated one (no warning).
        var named = ChangeSet<UUID>()
        named.recordDeletion(card.id)
        #expect(named.deletions == store.changes.deletions)
    }

    @Test @available(*, deprecated, message: "exercises StateWriter(keyPath:persist:)")
    func persistLabelReceivesDeletionsAsASet() async throws {
        let persisted = Persisted()
        let writer = StateWriter<CardsState>(keyPath: \.cards, persist: { writes, deletions in
            try persisted.record(writes, deletions)
        })
        let persistence = PersistenceMiddleware<CardsState>(writers: [writer], debounce: .seconds(3600))
        let a = Card(id: UUID(), title: "a"), b = Card(id: UUID(), title: "b")
        var state = CardsState(cards: EntityStore([a, b]))
        state.cards[a.id] = nil
        state.cards.modify(b.id) { $0.title = "b2" }
        persistence.afterReduce(state: &state)

        persisted.failNext(1)
        await #expect(throws: PersistenceWriteFailure.self) { try await persistence.flush() }
        try await persistence.flush()   // kept and written again
        #expect(persisted.all.count == 1)
        #expect(persisted.all.first?.writes == ["b2"])
        #expect(persisted.all.first?.deletions == [a.id])
    }

    @Test @available(*, deprecated, message: "exercises StateWriter.drain(_:) and flush()")
    func drainAndFlushByHand() async throws {
        let persisted = Persisted()
        let writer = StateWriter<CardsState>(keyPath: \.cards, persist: { writes, deletions in
            try persisted.record(writes, deletions)
        })
        var state = CardsState()
        #expect(!writer.drain(&state))
        #expect(writer.flush() == nil)

        let card = Card(id: UUID(), title: "first")
        state.cards[card.id] = card
        #expect(writer.drain(&state))
        #expect(state.cards.changes.isEmpty)
        state.cards.modify(card.id) { $0.title = "second" }
        writer.drain(&state)

        // A failing write puts the batch back: nothing is lost.
        persisted.failNext(1)
        let failing = try #require(writer.flush())
        #expect(writer.flush() == nil)
        await failing()
        #expect(persisted.all.isEmpty)
        #expect(writer.hasPendingWrites)

        let work = try #require(writer.flush())
        await work()
        #expect(persisted.all.map(\.writes) == [["second"]])
        #expect(!writer.hasPendingWrites)
        #expect(writer.flush() == nil)
    }

    @Test func trailingClosureWriterOfSwidux1StillResolves() async throws {
        // 1.0's README wrote the writer as a trailing closure with a non-throwing body; it
        // resolves to init(keyPath:write:) (deletions as an array), without a warning.
        let deleted = Recorder<UUID>()
        let writer = StateWriter(keyPath: \CardsState.cards) { writes, deletes in
            for id in deletes { deleted.append(id) }
            _ = writes
        }
        let persistence = PersistenceMiddleware<CardsState>(writers: [writer], debounce: .seconds(3600))
        let card = Card(id: UUID(), title: "x")
        var state = CardsState(cards: EntityStore([card]))
        state.cards[card.id] = nil
        persistence.afterReduce(state: &state)
        try await persistence.flush()
        #expect(deleted.values == [card.id])
    }
}
