import Foundation
import GRDB
import Swidux
import SwiduxSQLite
@testable import SwiduxSync
import SwiduxSyncWire
import Testing

/// A parent; its children are deleted with it (ON DELETE CASCADE).
struct Folder: Codable, Identifiable, Equatable, Sendable, FetchableRecord, PersistableRecord {
    static let databaseTableName = "folder"
    var id: String
    var name: String
}

/// A child with a foreign key to `Folder`.
struct Note: Codable, Identifiable, Equatable, Sendable, FetchableRecord, PersistableRecord {
    static let databaseTableName = "note"
    var id: String
    var folderId: String
    var text: String
}

struct NotesState: Sendable {
    var folders = EntityStore<Folder>()
    var notes = EntityStore<Note>()
}

enum NotesAction: Sendable {
    case putFolder(Folder)
    case putNote(Note)
    case deleteNote(String)
}

struct NotesReducer: SwiduxReducer {
    func reduce(state: inout NotesState, action: NotesAction, environment: Void) -> Effect<NotesAction>? {
        switch action {
        case .putFolder(let folder): state.folders[folder.id] = folder
        case .putNote(let note): state.notes[note.id] = note
        case .deleteNote(let id): state.notes[id] = nil
        }
        return nil
    }
}

enum NotesSchema {
    static let folders = EntityTable(recordsOf: Folder.self)
    static let notes = EntityTable(recordsOf: Note.self)
    static let tables: [SyncTable] = [.table(folders), .table(notes)]
    static let migrations = SwiduxMigrations { m in
        m.register("v1") { db in
            try db.create(table: "folder") { t in
                t.primaryKey("id", .text)
                t.entityPositionColumn()
                t.column("name", .text).notNull()
            }
            try db.create(table: "note") { t in
                t.primaryKey("id", .text)
                t.entityPositionColumn()
                t.belongsTo("folder", onDelete: .cascade).notNull()
                t.column("text", .text).notNull()
            }
        }
    }
}

/// A temporary directory, removed when it goes away.
final class TemporaryDirectory: @unchecked Sendable {
    let url: URL
    init() throws {
        url = FileManager.default.temporaryDirectory.appendingPathComponent("swidux-sync-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    }
    func path(_ name: String) -> String { url.appendingPathComponent(name).path }
    deinit { try? FileManager.default.removeItem(at: url) }
}

/// A database file with the notes schema and the sync engine installed.
struct Fixture {
    let directory: TemporaryDirectory
    let database: SwiduxDatabase
    let engine: SyncEngine

    init(mutationBytes: Int = 1 << 20, before: ((SwiduxDatabase) throws -> Void)? = nil) throws {
        directory = try TemporaryDirectory()
        database = try SwiduxDatabase(path: directory.path("app.sqlite"), migrations: NotesSchema.migrations)
        try before?(database)
        engine = try SyncEngine(writer: database.writer, tables: NotesSchema.tables, mutationBytes: mutationBytes)
    }

    /// A Swidux flush writing folders and notes.
    func flush(folders: [Folder] = [], notes: [Note] = [], deleteNotes: [String] = [], deleteFolders: [String] = []) async throws {
        try await database.performAtomically([
            { db in try NotesSchema.folders.write(WriteBatch(writes: folders, deletions: deleteFolders, insertions: Set(folders.map(\.id))), in: db) },
            { db in try NotesSchema.notes.write(WriteBatch(writes: notes, deletions: deleteNotes, insertions: Set(notes.map(\.id))), in: db) },
        ])
    }

    func outbox() throws -> [String] {
        try database.writer.read { db in
            try Row.fetchAll(db, sql: "SELECT tbl, rid, op FROM swidux_sync_outbox ORDER BY seq").map { "\($0[0] as String) \($0[1] as String) \($0[2] as String)" }
        }
    }

    func folderIDs() throws -> [String] {
        try database.writer.read { db in try String.fetchAll(db, sql: "SELECT id FROM folder ORDER BY id") }
    }

    func notes() throws -> [Note] {
        try database.writer.read { db in try Note.fetchAll(db, sql: "SELECT * FROM note ORDER BY id") }
    }

    /// Pushes as if the server applied every change with consecutive versions from `version`.
    @discardableResult
    func pushAndAcknowledge(from version: Int64 = 100) throws -> [SyncChange] {
        let pending = try engine.preparePush()
        var results: [SyncResult] = []
        var changes: [SyncChange] = []
        var next = version
        for mutation in pending {
            for change in try mutation.decoded().changes {
                changes.append(change)
                results.append(SyncResult(table: change.table, id: change.id, applied: true, current: SyncRow(
                    table: change.table, id: change.id, version: next, deleted: change.kind == .delete, columns: change.columns)))
                next += 1
            }
        }
        _ = try engine.acknowledge(PushResponse(lastMutationID: pending.last?.id ?? 0, results: results), sent: pending)
        return changes
    }
}

func folderRow(_ id: String, _ name: String, version: Int64, position: Int64 = 0) -> SyncRow {
    SyncRow(table: "folder", id: .text(id), version: version, deleted: false, columns: ["name": .text(name), "position": .integer(position)])
}

func noteRow(_ id: String, folder: String, _ text: String, version: Int64) -> SyncRow {
    SyncRow(table: "note", id: .text(id), version: version, deleted: false,
            columns: ["folderId": .text(folder), "text": .text(text), "position": .integer(0)])
}

func tombstone(_ table: String, _ id: String, version: Int64) -> SyncRow {
    SyncRow(table: table, id: .text(id), version: version, deleted: true)
}

/// Polls `condition` until it holds or `seconds` pass.
@MainActor
func eventually(seconds: Double = 10, _ condition: @MainActor () throws -> Bool) async rethrows -> Bool {
    let deadline = Date().addingTimeInterval(seconds)
    while Date() < deadline {
        if try condition() { return true }
        try? await Task.sleep(for: .milliseconds(5))
    }
    return try condition()
}
