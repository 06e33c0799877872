import Foundation
import GRDB
import Swidux
import SwiduxSQLite
@testable import SwiduxSync
import SwiduxSyncWire

/// The notes schema whose folders and notes name their space (`space`, `NULL`: the token's
/// own), and a `tag` table that names none (its rows are always the token's own space's).
enum SpacedNotesSchema {
    static let tables: [SyncTable] = [
        SyncTable(name: "folder", spaceColumn: "space"), SyncTable(name: "note", spaceColumn: "space"), SyncTable(name: "tag"),
    ]
    static let migrations = SwiduxMigrations { m in
        m.register("v1") { db in
            try db.create(table: "folder") { t in
                t.primaryKey("id", .text)
                t.entityPositionColumn()
                t.column("name", .text).notNull()
                t.column("space", .text)
            }
            try db.create(table: "note") { t in
                t.primaryKey("id", .text)
                t.entityPositionColumn()
                t.belongsTo("folder", onDelete: .cascade).notNull()
                t.column("text", .text).notNull()
                t.column("space", .text)
            }
            try db.create(table: "tag") { t in
                t.primaryKey("id", .text)
                t.entityPositionColumn()
                t.column("label", .text).notNull()
            }
        }
    }
}

/// One file with the spaced notes schema, its rows written with plain SQL (the journal's
/// triggers log them all the same), and an engine per space made on demand.
struct SpaceFixture {
    let directory: TemporaryDirectory
    let database: SwiduxDatabase

    init() throws {
        directory = try TemporaryDirectory()
        database = try SwiduxDatabase(path: directory.path("app.sqlite"), migrations: SpacedNotesSchema.migrations)
    }

    /// The engine of `space` (`nil`: the token's own) on this file.
    func engine(_ space: String? = nil, tables: [SyncTable] = SpacedNotesSchema.tables) throws -> SyncEngine {
        try SyncEngine(writer: database.writer, tables: tables, space: space)
    }

    func execute(_ sql: String, _ arguments: StatementArguments = []) throws {
        try database.writer.write { db in try db.execute(sql: sql, arguments: arguments) }
    }

    func addFolder(_ id: String, _ name: String, space: String?) throws {
        try execute("INSERT INTO folder (id, name, space) VALUES (?, ?, ?)", [id, name, space])
    }

    func addNote(_ id: String, folder: String, _ text: String, space: String?) throws {
        try execute("INSERT INTO note (id, folderId, text, space) VALUES (?, ?, ?, ?)", [id, folder, text, space])
    }

    /// Moves a folder and its notes to `space`.
    func move(folder id: String, to space: String?) throws {
        try database.writer.write { db in
            try db.execute(sql: "UPDATE folder SET space = ? WHERE id = ?", arguments: [space, id])
            try db.execute(sql: "UPDATE note SET space = ? WHERE folderId = ?", arguments: [space, id])
        }
    }

    func folderIDs() throws -> [String] {
        try database.writer.read { db in try String.fetchAll(db, sql: "SELECT id FROM folder ORDER BY id") }
    }

    /// `tbl rid op` of each entry of `engine`'s outbox, in order.
    func outbox(of engine: SyncEngine) throws -> [String] {
        try database.writer.read { db in
            try Row.fetchAll(db, sql: "SELECT tbl, rid, op FROM \(engine.schema.outbox) ORDER BY seq").map {
                "\($0[0] as String) \($0[1] as String) \($0[2] as String)"
            }
        }
    }
}

/// Pushes what `engine` has to push, as if the server applied every change with consecutive
/// versions from `version`; the changes sent.
@discardableResult
func pushAndAcknowledge(_ engine: SyncEngine, from version: Int64 = 100) throws -> [SyncChange] {
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
    if !pending.isEmpty {
        _ = try engine.acknowledge(PushResponse(lastMutationID: pending.last?.id ?? 0, results: results), sent: pending)
    }
    return changes
}

extension SyncChange {
    /// `kind table id`, for comparing what was pushed.
    var summary: String { "\(kind) \(table) \(id.key.dropFirst(2))" }
}

/// A row of a space as a pulled page holds it.
func spacedFolderRow(_ id: String, _ name: String, space: String?, version: Int64) -> SyncRow {
    SyncRow(table: "folder", id: .text(id), version: version, deleted: false,
            columns: ["name": .text(name), "position": .integer(0), "space": space.map { .text($0) } ?? .null])
}
