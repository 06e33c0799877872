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
            for name in names { setImmutable(url.appending(path: name).path, false) }
        }
        try? FileManager.default.removeItem(at: url)
    }
}

/// The file's bytes (nil if missing), to prove a file was left untouched.
func fileBytes(_ path: String) -> Data? { FileManager.default.contents(atPath: path) }

/// Sets or clears a file's immutable attribute, which stops even root from writing it, as
/// `chattr +i` / `chattr -i` do (the same ioctl, without a child process: it is called from
/// deinitializers). Whether it worked: it needs root and a file system that has the attribute
/// (ext4, xfs, btrfs); elsewhere, and on other systems, `false`.
@discardableResult
func setImmutable(_ path: String, _ immutable: Bool) -> Bool {
    #if os(Linux)
    // FS_IOC_GETFLAGS and FS_IOC_SETFLAGS (the generic ioctl encoding of x86_64 and arm64), and
    // FS_IMMUTABLE_FL: the kernel headers' macros are not imported into Swift.
    let (getFlags, setFlags, immutableFlag): (UInt, UInt, Int32) = (0x8008_6601, 0x4008_6602, 0x10)
    let file = open(path, O_RDONLY | O_NONBLOCK)
    guard file >= 0 else { return false }
    defer { close(file) }
    var flags: Int32 = 0
    guard ioctl(file, getFlags, &flags) == 0 else { return false }
    flags = immutable ? flags | immutableFlag : flags & ~immutableFlag
    return ioctl(file, setFlags, &flags) == 0
    #else
    return false
    #endif
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
