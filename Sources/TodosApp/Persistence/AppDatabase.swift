import Foundation
import GRDB
import Logging
import SwiduxSQLite

/// The app's database: schema (migrations), one table per entity store, hydration and
/// the state writers, registered referencing rows first (item tags, items, tags, lists).
///
/// Why that order: one flush is one transaction whose foreign-key checks are deferred to
/// the commit, so inserts may come in any order; but a deletion must not be pre-empted by a
/// cascade. Deleting a list deletes its items and their tag links explicitly (the reducers
/// do); written after them, the list's own deletion cascades nothing. Written before them,
/// its cascade would delete those rows first, their explicit deletions would find nothing
/// and be reported as "vanished" (deleted by another writer) — and an undo of the list
/// deletion would then not bring them back.
final class AppDatabase: Sendable {
    let database: SwiduxDatabase

    static let lists = EntityTable(recordsOf: TodoList.self)
    static let tags = EntityTable(recordsOf: Tag.self)
    static let items = EntityTable(recordsOf: TodoItem.self)
    static let itemTags = EntityTable(recordsOf: ItemTag.self)

    /// The schema. Foreign keys cascade, so deleting a list deletes its items and their
    /// tag links in the database even before the items' own deletions are written.
    static let migrations = SwiduxMigrations { migrations in
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
        // One list per name, across processes: a unique key (ListName.key). Files written
        // before this migration may hold several lists of one name (concurrent adds): they
        // are merged into the first one, items included.
        migrations.register("v2 unique list names") { db in
            try db.alter(table: TodoList.databaseTableName) { t in t.add(column: "nameKey", .text) }
            var survivors: [String: DatabaseValue] = [:]
            for row in try Row.fetchAll(db, sql: "SELECT id, name FROM todoList ORDER BY position, id") {
                let id: DatabaseValue = row["id"]
                let key = ListName.key(row["name"] ?? "")
                if let survivor = survivors[key] {
                    try db.execute(sql: "UPDATE todoItem SET listID = ? WHERE listID = ?", arguments: [survivor, id])
                    try db.execute(sql: "DELETE FROM todoList WHERE id = ?", arguments: [id])
                } else {
                    survivors[key] = id
                    try db.execute(sql: "UPDATE todoList SET nameKey = ? WHERE id = ?", arguments: [key, id])
                }
            }
            try db.create(index: "todoList_nameKey", on: TodoList.databaseTableName, columns: ["nameKey"], unique: true)
        }
        // Lists shared with other users: a list and its items name the sync space they are in
        // (`NULL`: the user's personal space). The store does not know the column (its upserts
        // leave it as it is); `todos share` sets it, and an item added to a shared list takes
        // its list's space here, in the transaction that adds it.
        migrations.register("v3 shared lists") { db in
            try db.alter(table: TodoList.databaseTableName) { t in t.add(column: "space", .text) }
            try db.alter(table: TodoItem.databaseTableName) { t in t.add(column: "space", .text) }
            try db.execute(sql: """
                CREATE TRIGGER todoItem_space_of_list AFTER INSERT ON todoItem
                WHEN NEW.space IS NULL AND (SELECT space FROM todoList WHERE id = NEW.listID) IS NOT NULL
                BEGIN
                    UPDATE todoItem SET space = (SELECT space FROM todoList WHERE id = NEW.listID) WHERE id = NEW.id;
                END
                """)
        }
    }

    /// How the file was opened (``open(path:access:)``).
    let access: SwiduxDatabase.Access
    /// Whether opening created the file (only ``SwiduxDatabase/Access/create`` does).
    let created: Bool

    init(database: SwiduxDatabase, access: SwiduxDatabase.Access = .create, created: Bool = false) {
        self.database = database
        self.access = access
        self.created = created
    }

    /// Opens the database file at `path`.
    ///
    /// - `.create` (adding, the UI): creates the file and its directory if needed
    ///   (``created`` tells);
    /// - `.existing` (`done`, `rm`): a missing file is an error, nothing is created;
    /// - `.readOnly` (`list`): nothing is ever written, not even a migration.
    ///
    /// Throws a ``SwiduxDatabaseError`` naming the file and the cause (``SwiduxDatabaseError/Cause/noDatabase``
    /// for a missing file); never replaces a file.
    static func open(path: String, access: SwiduxDatabase.Access = .create) throws -> AppDatabase {
        let fileManager = FileManager.default
        let existed = fileManager.fileExists(atPath: path)
        if access != .create, !existed {
            throw SwiduxDatabaseError(path: path, cause: .noDatabase)
        }
        if access == .create, !existed {
            try makeDirectories(for: path)
        }
        let database = try SwiduxDatabase(path: path, migrations: migrations, access: access)
        return AppDatabase(database: database, access: access, created: !existed)
    }

    /// Creates the missing directories above `path`; a failure names the directory, the
    /// database and the cause in one sentence.
    static func makeDirectories(for path: String) throws {
        var missing: [String] = []
        var directory = (path as NSString).deletingLastPathComponent
        while !directory.isEmpty, directory != "/", !FileManager.default.fileExists(atPath: directory) {
            missing.append(directory)
            directory = (directory as NSString).deletingLastPathComponent
        }
        for directory in missing.reversed() where mkdir(directory, 0o755) != 0 && errno != EEXIST {
            let reason = String(cString: strerror(errno)).lowercased()
            throw TodosError("cannot create the directory \(directory) for the database \(path): \(reason)")
        }
    }

    /// An empty in-memory database (tests).
    static func inMemory() throws -> AppDatabase {
        AppDatabase(database: try SwiduxDatabase.inMemory(migrations: migrations))
    }

    /// The list named `name` (``ListName``), created if there is none — atomically across
    /// processes: one immediate transaction and the unique `nameKey`, so concurrent callers
    /// all get the same list.
    ///
    /// - Throws: ``TodosError`` for an invalid name; ``SwiduxDatabaseError``.
    func ensureList(named raw: String, id: UUID? = nil) throws -> TodoList {
        let name = try ListName.validate(raw).get()
        let id = id ?? ListName.id(forKey: ListName.key(name))
        return try immediate { db in
            try db.execute(sql: """
                INSERT INTO todoList (id, name, nameKey, position)
                VALUES (?, ?, ?, (SELECT coalesce(max(position), -1) + 1 FROM todoList))
                ON CONFLICT(nameKey) DO NOTHING
                """, arguments: [id, name, ListName.key(name)])
            guard let list = try TodoList.fetchOne(db, sql: "SELECT * FROM todoList WHERE nameKey = ?", arguments: [ListName.key(name)]) else {
                throw TodosError("the list “\(name)” could not be created")
            }
            return list
        }
    }

    /// Creates the list ``TodoApp/defaultListName`` if there is no list at all (atomically,
    /// like ``ensureList(named:id:)``).
    func ensureDefaultList() throws {
        let empty = try database.writer.read { db in try Int.fetchOne(db, sql: "SELECT count(*) FROM todoList") == 0 }
        guard empty else { return }
        try immediate { db in
            guard try Int.fetchOne(db, sql: "SELECT count(*) FROM todoList") == 0 else { return }
            let name = TodoApp.defaultListName
            try db.execute(sql: """
                INSERT INTO todoList (id, name, nameKey, position) VALUES (?, ?, ?, 0)
                ON CONFLICT(nameKey) DO NOTHING
                """, arguments: [ListName.id(forKey: ListName.key(name)), name, ListName.key(name)])
        }
    }

    private func immediate<T>(_ body: (Database) throws -> T) throws -> T {
        do {
            return try database.writer.writeWithoutTransaction { db in
                var result: T?
                try db.inTransaction(.immediate) {
                    result = try body(db)
                    return .commit
                }
                return result!
            }
        } catch let error as TodosError {
            throw error
        } catch {
            throw TodosError(ErrorMessage.describe(error, path: database.path ?? "in memory"))
        }
    }

    /// Loads every entity store, in stored order. Records no changes.
    func hydrate() throws -> AppState {
        try database.hydrate { db in
            AppState(
                lists: try Self.lists.fetchStore(db),
                tags: try Self.tags.fetchStore(db),
                items: try Self.fetchItems(db),
                itemTags: try Self.itemTags.fetchStore(db)
            )
        }
    }

    /// The persistence middleware writing `AppState` to this database; one flush is one transaction.
    @MainActor
    func persistence(
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
    func integrityProblems() throws -> [String] {
        try database.writer.read { db in
            let integrity = try String.fetchAll(db, sql: "PRAGMA integrity_check").filter { $0 != "ok" }
            let foreignKeys = try Row.fetchAll(db, sql: "PRAGMA foreign_key_check").map { "foreign key: \($0)" }
            return integrity + foreignKeys
        }
    }

    func close() throws { try database.close() }
}

/// Where the database lives: `--db`, else `TODOS_DB`, else `$XDG_DATA_HOME/todos/todos.sqlite`,
/// else `~/.local/share/todos/todos.sqlite`.
enum DatabaseLocation {
    static func resolve(option: String?, environment: [String: String] = ProcessInfo.processInfo.environment) -> String {
        if let option, !option.isEmpty { return expand(option, environment: environment) }
        if let path = environment["TODOS_DB"], !path.isEmpty { return expand(path, environment: environment) }
        if let data = environment["XDG_DATA_HOME"], data.hasPrefix("/") {
            return data + "/todos/todos.sqlite"
        }
        let home = environment["HOME"].flatMap { $0.isEmpty ? nil : $0 } ?? NSHomeDirectory()
        return home + "/.local/share/todos/todos.sqlite"
    }

    /// `~` and `~/…` expand from `$HOME` (the account's home only when `HOME` is unset).
    static func expand(_ path: String, environment: [String: String] = ProcessInfo.processInfo.environment) -> String {
        guard path == "~" || path.hasPrefix("~/") else { return path }
        let home = environment["HOME"].flatMap { $0.isEmpty ? nil : $0 } ?? NSHomeDirectory()
        return home + path.dropFirst()
    }
}
