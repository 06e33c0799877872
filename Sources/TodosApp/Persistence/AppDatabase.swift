import Foundation
import GRDB
import Logging
import SwiduxSQLite

/// The app's database: schema (migrations), one table per entity store, hydration and
/// the state writers, registered leaves first (lists, tags, items, item tags).
public final class AppDatabase: Sendable {
    public let database: SwiduxDatabase

    static let lists = EntityTable(recordsOf: TodoList.self)
    static let tags = EntityTable(recordsOf: Tag.self)
    static let items = EntityTable(recordsOf: TodoItem.self)
    static let itemTags = EntityTable(recordsOf: ItemTag.self)

    /// The schema. Foreign keys cascade, so deleting a list deletes its items and their
    /// tag links in the database even before the items' own deletions are written.
    public static let migrations = SwiduxMigrations { migrations in
        migrations.register("v1") { db in
            try db.create(table: TodoList.databaseTableName) { t in
                t.primaryKey("id", .blob)
                t.entityPositionColumn()
                t.column("name", .text).notNull()
            }
            try db.create(table: Tag.databaseTableName) { t in
                t.primaryKey("id", .blob)
                t.entityPositionColumn()
                t.column("name", .text).notNull()
            }
            try db.create(table: TodoItem.databaseTableName) { t in
                t.primaryKey("id", .blob)
                t.entityPositionColumn()
                t.column("listID", .blob).notNull().indexed()
                    .references(TodoList.databaseTableName, onDelete: .cascade)
                t.column("title", .text).notNull()
                t.column("isDone", .boolean).notNull().defaults(to: false)
                t.column("createdAt", .datetime).notNull()
            }
            try db.create(table: ItemTag.databaseTableName) { t in
                t.primaryKey("id", .text)
                t.entityPositionColumn()
                t.column("itemID", .blob).notNull().indexed()
                    .references(TodoItem.databaseTableName, onDelete: .cascade)
                t.column("tagID", .blob).notNull().indexed()
                    .references(Tag.databaseTableName, onDelete: .cascade)
            }
        }
    }

    init(database: SwiduxDatabase) {
        self.database = database
    }

    /// Opens (creating it and its directory if needed) the database file at `path`.
    /// Throws a ``SwiduxDatabaseError`` naming the file and the cause; never replaces a file.
    public static func open(path: String) throws -> AppDatabase {
        let directory = (path as NSString).deletingLastPathComponent
        if !directory.isEmpty, !FileManager.default.fileExists(atPath: directory) {
            try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        }
        return AppDatabase(database: try SwiduxDatabase(path: path, migrations: migrations))
    }

    /// An empty in-memory database (tests).
    public static func inMemory() throws -> AppDatabase {
        AppDatabase(database: try SwiduxDatabase.inMemory(migrations: migrations))
    }

    /// Loads every entity store, in stored order. Records no changes.
    public func hydrate() throws -> AppState {
        try database.writer.read { db in
            AppState(
                lists: try Self.lists.fetchStore(db),
                tags: try Self.tags.fetchStore(db),
                items: try Self.items.fetchStore(db),
                itemTags: try Self.itemTags.fetchStore(db)
            )
        }
    }

    /// The persistence middleware writing `AppState` to this database; one flush is one transaction.
    @MainActor
    public func persistence(
        debounce: Duration = .milliseconds(250),
        clock: any Clock<Duration> = ContinuousClock(),
        logger: Logger = Logger(label: "todos.persistence")
    ) -> PersistenceMiddleware<AppState> {
        PersistenceMiddleware(
            writers: [
                database.stateWriter(for: \.itemTags, table: Self.itemTags),
                database.stateWriter(for: \.items, table: Self.items),
                database.stateWriter(for: \.tags, table: Self.tags),
                database.stateWriter(for: \.lists, table: Self.lists),
            ],
            debounce: debounce,
            clock: clock,
            logger: logger
        )
    }

    /// `PRAGMA integrity_check` and `PRAGMA foreign_key_check`: the problems found, empty when sound.
    public func integrityProblems() throws -> [String] {
        try database.writer.read { db in
            let integrity = try String.fetchAll(db, sql: "PRAGMA integrity_check").filter { $0 != "ok" }
            let foreignKeys = try Row.fetchAll(db, sql: "PRAGMA foreign_key_check").map { "foreign key: \($0)" }
            return integrity + foreignKeys
        }
    }

    public func close() throws { try database.close() }
}

/// Where the database lives: `--db`, else `TODOS_DB`, else `$XDG_DATA_HOME/todos/todos.sqlite`,
/// else `~/.local/share/todos/todos.sqlite`.
public enum DatabaseLocation {
    public static func resolve(option: String?, environment: [String: String] = ProcessInfo.processInfo.environment) -> String {
        if let option, !option.isEmpty { return expand(option) }
        if let path = environment["TODOS_DB"], !path.isEmpty { return expand(path) }
        if let data = environment["XDG_DATA_HOME"], data.hasPrefix("/") {
            return data + "/todos/todos.sqlite"
        }
        let home = environment["HOME"].flatMap { $0.isEmpty ? nil : $0 } ?? NSHomeDirectory()
        return home + "/.local/share/todos/todos.sqlite"
    }

    static func expand(_ path: String) -> String { (path as NSString).expandingTildeInPath }
}
