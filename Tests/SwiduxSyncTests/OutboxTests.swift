import Foundation
import GRDB
import SwiduxSQLite
@testable import SwiduxSync
import SwiduxSyncWire
import Testing

@Suite("Outbox and push building")
struct OutboxTests {
    struct Boom: Error {}

    @Test("A flush and its outbox entries commit together; a failed flush leaves neither")
    func outboxInTheFlushTransaction() async throws {
        let fixture = try Fixture()
        try await fixture.flush(folders: [Folder(id: "f1", name: "Home")], notes: [Note(id: "n1", folderId: "f1", text: "milk")])
        #expect(try fixture.outbox() == ["folder f1 I", "note n1 I"])
        await #expect(throws: (any Error).self) {
            try await fixture.database.performAtomically([
                { db in try NotesSchema.folders.write(WriteBatch(writes: [Folder(id: "f2", name: "Work")]), in: db) },
                { _ in throw Boom() },
            ])
        }
        #expect(try fixture.folderIDs() == ["f1"])
        #expect(try fixture.outbox() == ["folder f1 I", "note n1 I"])
    }

    @Test("Existing rows of a file that never synced are queued as inserts on first use")
    func firstSyncQueuesExistingRows() async throws {
        let fixture = try Fixture(before: { database in
            try database.writer.write { db in
                try db.execute(sql: "INSERT INTO folder (id, position, name) VALUES ('a', 0, 'A'), ('b', 1, 'B')")
                try db.execute(sql: "INSERT INTO note (id, position, folderId, text) VALUES ('n', 0, 'a', 'x')")
            }
        })
        #expect(try fixture.outbox() == ["folder a I", "folder b I", "note n I"])
        // Installing again (a second client object, a restart) queues nothing more.
        _ = try SyncEngine(writer: fixture.database.writer, tables: NotesSchema.tables)
        #expect(try fixture.outbox().count == 3)
        // Issue 31: the queued rows are pushed and forgotten without the outbox's index of rows.
        #expect(try !fixture.outboxIndexed())
        let changes = try fixture.pushAndAcknowledge()
        #expect(changes.map(\.kind) == [.insert, .insert, .insert])
        #expect(changes.first?.columns == ["name": .text("A"), "position": .integer(0)])
        #expect(try fixture.outbox().isEmpty)
        #expect(try fixture.engine.pendingCount() == 0)
        #expect(try !fixture.outboxIndexed())
        // An update's entries are looked up (folded): the index is made first.
        try await fixture.flush(folders: [Folder(id: "c", name: "C")])
        try fixture.execute("UPDATE folder SET name = 'C2' WHERE id = 'c'; UPDATE folder SET name = 'A2' WHERE id = 'a'")
        let later = try fixture.pushAndAcknowledge()
        #expect(later.map(\.id) == [.text("c"), .text("a")], "\(later)")
        #expect(later.map(\.kind) == [.insert, .update], "\(later)")
        #expect(try fixture.outboxIndexed())
        #expect(try fixture.outbox().isEmpty)
    }

    @Test("A synced table that does not exist is named in the error, also when another table has rows to queue")
    func missingTableIsNamed() throws {
        let fixture = try Fixture(before: { database in
            try database.writer.write { db in try db.execute(sql: "INSERT INTO folder (id, position, name) VALUES ('a', 0, 'A')") }
        })
        #expect(throws: SyncError.self) {
            _ = try SyncEngine(writer: fixture.database.writer, tables: [.table(NotesSchema.folders), SyncTable(name: "nowhere", idColumn: "id")])
        }
        do {
            _ = try SyncEngine(writer: fixture.database.writer, tables: [.table(NotesSchema.folders), SyncTable(name: "nowhere", idColumn: "id")])
        } catch {
            #expect("\(error)".contains("\"nowhere\" does not exist"), "\(error)")
        }
    }

    @Test("Synced tables are registered as synced, next to the position column a following store registered")
    func syncedTablesRegistered() throws {
        let fixture = try Fixture(before: { database in
            try database.writer.write { db in try db.installChangeJournal(for: NotesSchema.folders) }
        })
        let (entries, installed) = try fixture.database.writer.read { db in
            (try LoggedTables.all(in: db), try SyncSchema.main.isInstalled(in: db, tables: NotesSchema.tables))
        }
        #expect(entries == [
            LoggedTables.Entry(table: "folder", idColumn: "id", positionColumn: "position", synced: true),
            LoggedTables.Entry(table: "note", idColumn: "id", synced: true),
        ])
        #expect(installed)
        // A file whose synced tables are not registered (made by the version before the
        // registry) is not taken as installed: the engine registers them.
        try fixture.execute("DELETE FROM swidux_logged_table WHERE tbl = 'note'")
        #expect(try !fixture.database.writer.read { db in try SyncSchema.main.isInstalled(in: db, tables: NotesSchema.tables) })
        _ = try SyncEngine(writer: fixture.database.writer, tables: NotesSchema.tables)
        #expect(try fixture.database.writer.read { db in try LoggedTables.entry("note", in: db)?.synced } == true)
    }

    @Test("A pulled page makes the outbox's index of rows, which it looks rows up in (issue 31)")
    func pullMakesTheOutboxIndex() async throws {
        let fixture = try Fixture(before: { database in
            try database.writer.write { db in try db.execute(sql: "INSERT INTO folder (id, position, name) VALUES ('a', 0, 'A')") }
        })
        #expect(try !fixture.outboxIndexed())
        // A row with a local change not pushed yet keeps it: the pulled version is skipped.
        _ = try fixture.engine.apply(PullResponse(rows: [folderRow("a", "server", version: 5), folderRow("b", "B", version: 6)],
                                                  cursor: 6, hasMore: false))
        #expect(try fixture.outboxIndexed())
        #expect(try fixture.folderNames() == ["A", "B"])
        #expect(try fixture.outbox() == ["folder a I"])
    }

    @Test("Cascaded deletions are recorded, in the flush's transaction")
    func cascadesRecorded() async throws {
        let fixture = try Fixture()
        try await fixture.flush(folders: [Folder(id: "f", name: "F")], notes: [Note(id: "a", folderId: "f", text: "1"), Note(id: "b", folderId: "f", text: "2")])
        try fixture.pushAndAcknowledge()
        try await fixture.flush(deleteFolders: ["f"])
        #expect(Set(try fixture.outbox()) == ["note a D", "note b D", "folder f D"])
        let changes = try fixture.pushAndAcknowledge(from: 200)
        #expect(changes.allSatisfy { $0.kind == .delete && $0.columns == nil })
        #expect(changes.count == 3)
    }

    @Test("Folding: a row's operations since its last push make one change")
    func folding() async throws {
        #expect(SyncEngine.fold(["I"]) == .insert)
        #expect(SyncEngine.fold(["I", "U", "U"]) == .insert)
        #expect(SyncEngine.fold(["U", "U"]) == .update)
        #expect(SyncEngine.fold(["I", "D"]) == .delete)
        #expect(SyncEngine.fold(["U", "D"]) == .delete)
        #expect(SyncEngine.fold(["U", "D", "I"]) == .insert)
        #expect(SyncEngine.fold(["D", "I", "U"]) == .insert)

        let fixture = try Fixture()
        try await fixture.flush(folders: [Folder(id: "keep", name: "K"), Folder(id: "gone", name: "G"), Folder(id: "back", name: "B")])
        try fixture.pushAndAcknowledge()
        try await fixture.flush(folders: [Folder(id: "keep", name: "K2"), Folder(id: "new", name: "N")])
        try await fixture.flush(deleteFolders: ["gone", "back"])
        try await fixture.flush(folders: [Folder(id: "back", name: "B2")])   // deleted and created again (SQLiteData #418)
        let changes = try fixture.engine.preparePush().flatMap { try $0.decoded().changes }
        let kinds = Dictionary(uniqueKeysWithValues: changes.map { ($0.id, $0.kind) })
        #expect(kinds == [.text("keep"): .update, .text("new"): .insert, .text("gone"): .delete, .text("back"): .insert])
        let keep = changes.first { $0.id == .text("keep") }
        #expect(keep?.columns?["name"] == .text("K2"))
        #expect(keep?.baseVersion == 100)   // the version acknowledged for it
        #expect(changes.first { $0.id == .text("new") }?.baseVersion == nil)
    }

    @Test("Pending mutations are stored before sending and resent byte for byte; changes made meanwhile wait")
    func pendingResentAsIs() async throws {
        let fixture = try Fixture(mutationBytes: 300)
        try await fixture.flush(folders: (0..<20).map { Folder(id: "f\($0)", name: String(repeating: "x", count: 40)) })
        let first = try fixture.engine.preparePush()
        #expect(first.count > 1)   // cut in several mutations under the size limit
        #expect(first.map(\.id) == Array(1...Int64(first.count)))
        #expect(try first.flatMap { try $0.decoded().changes }.count == 20)
        try await fixture.flush(folders: [Folder(id: "late", name: "L")])
        let again = try fixture.engine.preparePush()
        #expect(again == first)
        // The server acknowledges only the first mutation: the others stay pending.
        _ = try fixture.engine.acknowledge(PushResponse(lastMutationID: 1, results: []), sent: first)
        #expect(try fixture.engine.preparePush() == Array(first.dropFirst()))
        let body = try SyncEngine.pushBody(clientID: "c", Array(first.prefix(2)))
        let decoded = try JSONDecoder().decode(PushRequest.self, from: body)
        #expect(decoded.mutations == (try first.prefix(2).map { try $0.decoded() }))
        // The client reads no columns from the answer: it asks the server to leave them out.
        #expect(decoded.resultColumns == false)
    }
}

private extension Fixture {
    func outboxIndexed() throws -> Bool { try database.writer.read { db in try SyncSchema.main.hasOutboxIndex(db) } }
    func execute(_ sql: String) throws { try database.writer.write { db in try db.execute(sql: sql) } }
    func folderNames() throws -> [String] { try database.writer.read { db in try String.fetchAll(db, sql: "SELECT name FROM folder ORDER BY id") } }
}
