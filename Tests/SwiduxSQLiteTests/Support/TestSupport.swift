import Foundation
import GRDB
import SwiduxSQLite
import SwiduxTesting
import Testing

// MARK: - Entities

struct Todo: Codable, Identifiable, Equatable, Sendable {
    var id: Int
    var title: String
    var done: Bool
    var tags: [String]
}

struct Note: Codable, Identifiable, Equatable, Sendable {
    var id: UUID
    var text: String
    var pinned: Bool
}

/// Record mapping with real columns; referenced by `Item`.
struct Folder: Codable, Identifiable, Equatable, Sendable, FetchableRecord, PersistableRecord {
    var id: String
    var name: String
}

/// Record mapping with a foreign key to `Folder`.
struct Item: Codable, Identifiable, Equatable, Sendable, FetchableRecord, PersistableRecord {
    var id: String
    var folderId: String
    var title: String
    var rank: Double?
}

struct TestState: Sendable {
    var todos = EntityStore<Todo>()
    var notes = EntityStore<Note>()
    var folders = EntityStore<Folder>()
    var items = EntityStore<Item>()
}

enum Schema {
    static let todos = EntityTable<Todo>(named: "todo")
    static let notes = EntityTable<Note>(named: "note")
    static let folders = EntityTable(recordsOf: Folder.self)
    static let items = EntityTable(recordsOf: Item.self)

    static let migrations = SwiduxMigrations { m in
        m.register("v1") { db in
            try db.createEntityTable(for: Todo.self, named: "todo")
            try db.createEntityTable(Schema.notes)
        }
        m.register("v2-folders") { db in
            try db.create(table: "folder") { t in
                t.primaryKey("id", .text)
                t.entityPositionColumn()
                t.column("name", .text).notNull()
            }
            // No ON DELETE action: deleting a folder that still has items is refused.
            try db.create(table: "item") { t in
                t.primaryKey("id", .text)
                t.entityPositionColumn()
                t.belongsTo("folder").notNull()
                t.column("title", .text).notNull()
                t.column("rank", .double)
            }
        }
    }
}

// MARK: - Files

/// A fresh temporary directory, removed (immutable flags cleared first) by `remove()`.
struct TemporaryDirectory: ~Copyable {
    let url: URL

    init() throws {
        url = FileManager.default.temporaryDirectory.appending(path: "swidux-sqlite-tests-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    }

    func path(_ name: String) -> String { url.appending(path: name).path }

    deinit {
        if let names = try? FileManager.default.contentsOfDirectory(atPath: url.path) {
            for name in names { _ = try? run("/usr/bin/chattr", ["-i", url.appending(path: name).path]) }
        }
        try? FileManager.default.removeItem(at: url)
    }
}

/// The file's bytes (nil if missing), to prove a file was left untouched.
func fileBytes(_ path: String) -> Data? { FileManager.default.contents(atPath: path) }

@discardableResult
func run(_ executable: String, _ arguments: [String]) throws -> Int32 {
    guard FileManager.default.isExecutableFile(atPath: executable) else { return -1 }
    let process = Process()
    process.executableURL = URL(fileURLWithPath: executable)
    process.arguments = arguments
    process.standardOutput = FileHandle.nullDevice
    process.standardError = FileHandle.nullDevice
    try process.run()
    process.waitUntilExit()
    return process.terminationStatus
}

// MARK: - Randomness

typealias SeededGenerator = SeededRandomNumberGenerator

// MARK: - Flushing without the middleware

extension EntityStore {
    /// Drains the change log into the batch a StateWriter would hand to its backend.
    mutating func drainBatch() -> WriteBatch<Entity> {
        let changes = drainChanges()
        return WriteBatch(
            writes: changes.upserted.compactMap { self[$0] },
            deletions: changes.deleted + changes.upserted.filter { self[$0] == nil },
            order: changes.orderChanged ? ids : nil
        )
    }
}
