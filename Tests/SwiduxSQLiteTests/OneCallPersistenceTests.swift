import Clocks
import Foundation
import GRDB
import SwiduxSQLite
import Testing

/// `SwiduxDatabase.persistence(hydrating:_:)`: one declaration per entity store gives the
/// hydration and the writer.
@MainActor
@Suite("One call per persisted entity store")
struct OneCallPersistenceTests {
    struct Parent: Codable, Identifiable, Equatable, Sendable, FetchableRecord, PersistableRecord {
        static let databaseTableName = "parent"
        var id: Int
        var name: String
    }

    struct Child: Codable, Identifiable, Equatable, Sendable, FetchableRecord, PersistableRecord {
        static let databaseTableName = "child"
        var id: Int
        var parentId: Int
    }

    struct FamilyState {
        var parents = EntityStore<Parent>()
        var children = EntityStore<Child>()
        var unpersisted = "left alone"
    }

    nonisolated static let parents = EntityTable(recordsOf: Parent.self)
    nonisolated static let children = EntityTable(recordsOf: Child.self)

    /// Parents and children whose foreign key has the `ON DELETE` action `action`.
    static func migrations(onDelete action: Database.ForeignKeyAction?) -> SwiduxMigrations {
        SwiduxMigrations { m in
            m.register("v1") { db in
                try db.create(table: "parent") { t in
                    t.primaryKey("id", .integer)
                    t.entityPositionColumn()
                    t.column("name", .text).notNull()
                }
                try db.create(table: "child") { t in
                    t.primaryKey("id", .integer)
                    t.entityPositionColumn()
                    t.column("parentId", .integer).notNull().references("parent", onDelete: action)
                }
            }
        }
    }

    @Test func oneCallHydratesEveryListedStoreAndPersistsItsChanges() async throws {
        let directory = try TemporaryDirectory()
        let path = directory.path("family.sqlite")
        let migrations = Self.migrations(onDelete: .cascade)
        do {
            // A previous launch, through the parts.
            let database = try SwiduxDatabase(path: path, migrations: migrations)
            try await database.performAtomically([
                { db in try Self.parents.write(WriteBatch(writes: [Parent(id: 2, name: "b"), Parent(id: 1, name: "a")]), in: db) },
                { db in try Self.children.write(WriteBatch(writes: [Child(id: 10, parentId: 1)]), in: db) },
            ])
            try database.close()
        }

        let database = try SwiduxDatabase(path: path, migrations: migrations)
        var state = FamilyState()
        let persistence = try database.persistence(hydrating: &state, [
            .entities(\.children, in: Self.children),
            .entities(\.parents, in: Self.parents),
        ], clock: TestClock())
        #expect(state.parents.values == [Parent(id: 2, name: "b"), Parent(id: 1, name: "a")])   // stored order
        #expect(state.children.values == [Child(id: 10, parentId: 1)])
        #expect(state.parents.changes.isEmpty && state.children.changes.isEmpty)               // nothing to write back
        #expect(state.unpersisted == "left alone")
        #expect(persistence.writers.map(\.name) == ["\(\FamilyState.children)", "\(\FamilyState.parents)"])

        // A child of a new parent, in one flush: the listed order does not matter for insertions.
        state.children[id: 11] = Child(id: 11, parentId: 3)
        state.parents[id: 3] = Parent(id: 3, name: "c")
        state.parents.modify(2) { $0.name = "B" }
        persistence.afterReduce(state: &state)
        try await persistence.flush()

        var reloaded = FamilyState()
        _ = try database.persistence(hydrating: &reloaded, [
            .entities(\.parents, in: Self.parents),
            .entities(\.children, in: Self.children),
        ])
        #expect(reloaded.parents.values == state.parents.values)
        #expect(reloaded.children.values == state.children.values)
    }

    @Test func aRowThatNoLongerDecodesNamesTheTableAndLeavesTheStateAlone() async throws {
        struct Renamed: Codable, Identifiable, Equatable, Sendable { var id: Int; var title: String }
        struct RenamedState { var items = EntityStore<Renamed>() }
        let database = try SwiduxDatabase.inMemory(migrations: SwiduxMigrations { m in
            m.register("v1") { db in try db.createEntityTable(for: Renamed.self, named: "renamed") }
        })
        try await database.writer.write { db in
            try db.execute(sql: #"INSERT INTO renamed (id, position, data) VALUES (1, 0, '{"id":1,"name":"old"}')"#)
        }
        var state = RenamedState()
        state.items[id: 7] = Renamed(id: 7, title: "kept")
        do {
            _ = try database.persistence(hydrating: &state, [.entities(\.items, in: EntityTable<Renamed>(named: "renamed"))])
            Issue.record("hydration should have failed")
        } catch let error as SwiduxDatabaseError {
            #expect(error.cause == .undecodable(table: "renamed"))
        }
        #expect(state.items.values == [Renamed(id: 7, title: "kept")])
    }

    /// Deleting a parent and its child in one flush, with each `ON DELETE` action and each
    /// writer order (`parentId` is `NOT NULL`). Children listed first always works. Parents
    /// first: `NO ACTION` and `RESTRICT` are checked at the commit (`defer_foreign_keys`), so
    /// they work too; `CASCADE` deletes the child first, whose own deletion then finds no row
    /// (harmless: reported to `onVanished`, the state untouched); `SET NULL` rewrites the
    /// child's `parentId` to NULL before the child's deletion runs, which the `NOT NULL`
    /// column refuses at once: the flush fails as a whole.
    @Test(arguments: [
        (Database.ForeignKeyAction?.none, true), (.none, false),
        (.restrict, true), (.restrict, false),
        (.cascade, true), (.cascade, false),
        (.setNull, true), (.setNull, false),
    ] as [(Database.ForeignKeyAction?, Bool)])
    func deletingAParentAndItsChildInOneFlush(action: Database.ForeignKeyAction?, childrenFirst: Bool) async throws {
        let database = try SwiduxDatabase.inMemory(migrations: Self.migrations(onDelete: action))
        try await database.performAtomically([
            { db in try Self.parents.write(WriteBatch(writes: [Parent(id: 1, name: "a"), Parent(id: 2, name: "b")]), in: db) },
            { db in try Self.children.write(WriteBatch(writes: [Child(id: 10, parentId: 1), Child(id: 20, parentId: 2)]), in: db) },
        ])
        var state = FamilyState()
        let stores: [PersistedEntities<FamilyState>] = [
            .entities(\.children, in: Self.children),
            .entities(\.parents, in: Self.parents),
        ]
        let persistence = try database.persistence(
            hydrating: &state, childrenFirst ? stores : stores.reversed(), clock: TestClock())
        let vanished = VanishedLog()
        persistence.onVanished = { report in vanished.append(report.ids.compactMap { $0 as? Int }) }

        state.children[id: 10] = nil
        state.parents[id: 1] = nil
        persistence.afterReduce(state: &state)
        let flushed: Bool
        do {
            try await persistence.flush()
            flushed = true
        } catch {
            flushed = false
        }

        let stored = try await database.writer.read { db in
            (try Self.parents.fetchAll(db), try Self.children.fetchAll(db))
        }
        if action == .setNull && !childrenFirst {
            // Refused as a whole: nothing deleted, the changes wait for a retry.
            #expect(!flushed)
            #expect(stored.0.map(\.id) == [1, 2] && stored.1.map(\.id) == [10, 20])
            #expect(persistence.hasPendingWrites)
        } else {
            #expect(flushed)
            #expect(stored.0 == [Parent(id: 2, name: "b")])
            #expect(stored.1 == [Child(id: 20, parentId: 2)])
            // The state is untouched by what the database reported.
            #expect(state.parents.values == [Parent(id: 2, name: "b")])
            #expect(state.children.values == [Child(id: 20, parentId: 2)])
            if action == .cascade && !childrenFirst {
                #expect(vanished.ids == [10])   // found deleted by the cascade
            } else {
                #expect(vanished.ids.isEmpty)
            }
        }
    }
}
