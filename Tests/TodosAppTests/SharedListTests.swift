import Foundation
import GRDB
import Testing
@testable import TodosApp

/// Lists shared with other users, locally: items follow their list's space, read-only lists
/// are refused by the UI and named by the commands, and both screens mark shared lists.
@Suite("Shared lists")
@MainActor
struct SharedListTests {
    /// The registry of synced spaces, as the sync client records the roles the server listed.
    func record(_ spaces: [(name: String, role: String?)], in database: AppDatabase) throws {
        try database.database.writer.write { db in
            try db.execute(sql: "CREATE TABLE IF NOT EXISTS swidux_sync_space (name TEXT PRIMARY KEY NOT NULL, suffix TEXT NOT NULL UNIQUE, role TEXT)")
            for (index, space) in spaces.enumerated() {
                try db.execute(sql: "INSERT INTO swidux_sync_space (name, suffix, role) VALUES (?, ?, ?)", arguments: [space.name, "_s\(index + 1)", space.role])
            }
        }
    }

    func space(ofItem id: UUID, in database: AppDatabase) throws -> String? {
        try database.database.writer.read { db in try String.fetchOne(db, sql: "SELECT space FROM todoItem WHERE id = ?", arguments: [id]) }
    }

    @Test func anItemAddedToASharedListTakesItsSpaceAndOthersStayPersonal() async throws {
        let database = try AppDatabase.inMemory()
        let groceries = try database.ensureList(named: "Groceries"), work = try database.ensureList(named: "Work")
        let app = try TodoApp(database: database, uuid: IDSequence().callAsFunction, now: { fixedDate })
        app.perform(.send(.items(.add(id: uuid(1), listID: groceries.id, title: "milk"))))
        try await app.flush()
        try database.moveList(groceries.id, to: "list-g")
        #expect(try space(ofItem: uuid(1), in: database) == "list-g", "an item already in the list moves with it")
        app.perform(.send(.items(.add(id: uuid(2), listID: groceries.id, title: "eggs"))))
        app.perform(.send(.items(.add(id: uuid(3), listID: work.id, title: "report"))))
        try await app.flush()
        #expect(try space(ofItem: uuid(2), in: database) == "list-g")
        #expect(try space(ofItem: uuid(3), in: database) == nil)
        // The store's own writes leave the column as it is.
        app.perform(.send(.items(.setTitle(id: uuid(2), title: "6 eggs"))))
        try await app.flush()
        #expect(try space(ofItem: uuid(2), in: database) == "list-g")
    }

    @Test func readOnlyListsAreNamedAndRefused() async throws {
        let database = try AppDatabase.inMemory()
        let (mine, read) = (try database.ensureList(named: "Mine"), try database.ensureList(named: "Read"))
        let (gone, fresh) = (try database.ensureList(named: "Gone"), try database.ensureList(named: "Fresh"))
        let app = try TodoApp(database: database, uuid: IDSequence().callAsFunction, now: { fixedDate })
        try database.moveList(mine.id, to: "s-mine")
        try database.moveList(read.id, to: "s-read")
        try database.moveList(gone.id, to: "s-gone")
        try database.moveList(fresh.id, to: "s-fresh")
        try record([("s-mine", "owner"), ("s-read", "reader"), ("s-gone", nil)], in: database)
        let shared = try database.sharedLists()
        #expect(shared == [mine.id: true, read.id: false, gone.id: false, fresh.id: true])
        #expect(try database.readOnlyReason(list: mine.id) == nil)
        #expect(try database.readOnlyReason(list: fresh.id) == nil, "a space not recorded yet is one this device just made")
        #expect(try database.readOnlyReason(list: read.id)?.contains("read-only") == true)
        #expect(try database.readOnlyReason(list: gone.id)?.contains("no longer shared") == true)

        app.perform(.send(.items(.add(id: uuid(1), listID: read.id, title: "milk"))))
        let readOnly = ReadOnlyLists(shared: shared)
        let state = app.store.state
        #expect(readOnly.list(changedBy: .items(.add(id: uuid(2), listID: read.id, title: "x")), in: state) == read.id)
        #expect(readOnly.list(changedBy: .items(.toggle(id: uuid(1))), in: state) == read.id)
        #expect(readOnly.list(changedBy: .lists(.rename(id: gone.id, name: "y")), in: state) == gone.id)
        #expect(readOnly.list(changedBy: .items(.add(id: uuid(3), listID: mine.id, title: "x")), in: state) == nil)
        #expect(readOnly.list(changedBy: .tags(.add(itemID: uuid(1), name: "home", tagID: uuid(4))), in: state) == nil,
                "tags are the user's own")
        #expect(readOnly.list(changedBy: .lists(.select(id: read.id)), in: state) == nil)
    }

    @Test func bothScreensMarkSharedLists() async throws {
        let database = try AppDatabase.inMemory()
        let groceries = try database.ensureList(named: "Groceries")
        let app = try TodoApp(database: database, uuid: IDSequence().callAsFunction, now: { fixedDate })
        app.perform(.send(.lists(.add(id: uuid(9), name: "Chores"))))
        app.perform(.send(.lists(.select(id: groceries.id))))
        let size = TerminalIO.Size(columns: 80, rows: 12)
        let items = Render.screen(app.store.state, size: size, shared: [groceries.id: false])
        #expect(items[0].contains("Groceries (shared, read-only)"), "\(items[0])")
        #expect(items[1].contains("Groceries⇄") && !items[1].contains("Chores⇄"), "\(items[1])")
        app.perform(.send(.ui(.showScreen(.lists))))
        let lists = Render.screen(app.store.state, size: size, shared: [groceries.id: true]).joined(separator: "\n")
        #expect(lists.contains("Groceries (shared)"))
        #expect(!lists.contains("Chores (shared"))
    }
}
