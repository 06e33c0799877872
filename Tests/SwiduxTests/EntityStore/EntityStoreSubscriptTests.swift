import Foundation
import Testing
import Swidux

/// `store[id: x]` and `store[position: i]` say which access they mean; with `Int` ids the
/// unlabelled `store[x]` is the lookup by id.
@MainActor
@Suite("EntityStore subscripts: by id, by position")
struct EntityStoreSubscriptTests {
    struct Numbered: Identifiable, Equatable, Sendable {
        let id: Int
        var name: String
    }

    struct Named: Identifiable, Equatable, Sendable {
        let id: String
        var name: String
    }

    struct NumberedState: Equatable {
        var rows = EntityStore<Numbered>()
    }

    /// Ids 10, 0, 5, in that order: id 0 is at position 1, position 0 holds id 10.
    static func numbered() -> EntityStore<Numbered> {
        [Numbered(id: 10, name: "ten"), Numbered(id: 0, name: "zero"), Numbered(id: 5, name: "five")]
    }

    @Test func withIntIDsTheLabelsChooseTheAccess() {
        let rows = Self.numbered()
        // The types are part of the contract: by id is optional, by position is not.
        let byID: Numbered? = rows[id: 0]
        let byPosition: Numbered = rows[position: 0]
        #expect(byID?.name == "zero")
        #expect(byPosition.name == "ten")
        #expect(rows[id: 1] == nil)                         // no id 1, although position 1 exists
        #expect(rows.indices.map { rows[position: $0].id } == [10, 0, 5])
    }

    @Test func withIntIDsTheUnlabelledSubscriptIsTheLookupByID() {
        let rows = Self.numbered()
        let unlabelled = rows[0]
        #expect(type(of: unlabelled) == Numbered?.self)
        #expect(unlabelled?.name == "zero")
        #expect(rows[0]?.name == "zero")
        #expect(rows[1] == nil)
        // Generic collection code still reads positions (the `Collection` conformance).
        #expect(rows.first?.id == 10)
        #expect(rows.map(\.id) == [10, 0, 5])
    }

    /// The deprecated fallback (`rows[x]` where only an entity fits) still reads the
    /// position, as before: existing code keeps its meaning while the compiler flags it.
    @Test func theDeprecatedPositionalFallbackStillReadsThePosition() {
        let reader: any LegacyPositionalReader = LegacySpelling()
        #expect(reader.name(in: Self.numbered(), at: 0) == "ten")
        #expect(reader.observedName(in: Store(initialState: NumberedState(rows: Self.numbered()),
                                              reducer: Reduce<NumberedState, Int, Void> { _, _, _ in nil },
                                              environment: ()), at: 0) == "ten")
    }

    @Test func theIDSubscriptWritesAndRecordsLikeTheUnlabelledOne() {
        var rows = EntityStore<Numbered>()
        rows[id: 3] = Numbered(id: 3, name: "three")
        rows[id: 4] = Numbered(id: 4, name: "four")
        rows[id: 3]?.name = "THREE"
        rows[id: 4] = nil
        #expect(rows.values == [Numbered(id: 3, name: "THREE")])
        var unlabelled = EntityStore<Numbered>()
        unlabelled[3] = Numbered(id: 3, name: "three")
        unlabelled[4] = Numbered(id: 4, name: "four")
        unlabelled[3]?.name = "THREE"
        unlabelled[4] = nil
        #expect(unlabelled == rows)
        #expect(unlabelled.changes == rows.changes)
    }

    @Test func nonIntIDsKeepTheSeedSpelling() {
        var rows: EntityStore<Named> = [Named(id: "b", name: "bee"), Named(id: "a", name: "ay")]
        #expect(rows["a"]?.name == "ay")                   // the seed's store[id]
        #expect(rows[id: "a"]?.name == "ay")
        #expect(rows[0].name == "bee")                     // no ambiguity: a position
        #expect(rows[position: 0].name == "bee")
        rows["c"] = Named(id: "c", name: "see")
        #expect(rows.ids == ["b", "a", "c"])
    }

    @Test func observedEntitiesHaveTheSameSpellings() {
        let store = Store(
            initialState: NumberedState(rows: Self.numbered()),
            reducer: Reduce<NumberedState, Int, Void> { _, _, _ in nil },
            environment: ())
        let byID: Numbered? = store.rows[id: 0]
        let byPosition: Numbered = store.rows[position: 0]
        let unlabelled = store.rows[0]
        #expect(byID?.name == "zero")
        #expect(byPosition.name == "ten")
        #expect(type(of: unlabelled) == Numbered?.self)
        #expect(unlabelled?.name == "zero")
    }
}

/// Reads positions with the deprecated unlabelled spelling. The witnesses are deprecated,
/// so the deprecated subscript is used without a warning; callers go through the protocol.
@MainActor
protocol LegacyPositionalReader {
    func name(in rows: EntityStore<EntityStoreSubscriptTests.Numbered>, at position: Int) -> String
    func observedName(in store: Store<EntityStoreSubscriptTests.NumberedState, Int>, at position: Int) -> String
}

struct LegacySpelling: LegacyPositionalReader {
    @available(*, deprecated, message: "exercises the deprecated positional fallback")
    func name(in rows: EntityStore<EntityStoreSubscriptTests.Numbered>, at position: Int) -> String {
        rows[position].name
    }

    @available(*, deprecated, message: "exercises the deprecated positional fallback")
    func observedName(in store: Store<EntityStoreSubscriptTests.NumberedState, Int>, at position: Int) -> String {
        store.rows[position].name
    }
}
