import Clocks
import Foundation
import SwiduxTestSupport
import GRDB
import Logging
import SwiduxSQLite

/// A list; its items are deleted with it (`ON DELETE CASCADE`), its notes lose it
/// (`ON DELETE SET NULL`); an app trigger counts the items inserted into it.
struct CList: Codable, Identifiable, Equatable, Sendable, FetchableRecord, PersistableRecord {
    static let databaseTableName = "clist"
    var id: String
    var name: String
    var itemCount = 0
}

struct CItem: Codable, Identifiable, Equatable, Sendable, FetchableRecord, PersistableRecord {
    static let databaseTableName = "citem"
    var id: String
    var clistId: String
    var title: String
}

struct CNote: Codable, Identifiable, Equatable, Sendable, FetchableRecord, PersistableRecord {
    static let databaseTableName = "cnote"
    var id: String
    var clistId: String?
    var text: String
}

struct CState: Sendable, Equatable {
    var lists = EntityStore<CList>()
    var items = EntityStore<CItem>()
    var notes = EntityStore<CNote>()

    static func == (lhs: CState, rhs: CState) -> Bool {
        lhs.lists.values == rhs.lists.values && lhs.items.values == rhs.items.values && lhs.notes.values == rhs.notes.values
    }
}

/// Any change of the state, as an action (the tests say what happens inline).
struct CEdit: Sendable {
    let change: @Sendable (inout CState) -> Void
    init(_ change: @escaping @Sendable (inout CState) -> Void) { self.change = change }
}

struct CReducer: SwiduxReducer {
    func reduce(state: inout CState, action: CEdit, environment: Void) -> Effect<CEdit>? {
        action.change(&state)
        return nil
    }
}

enum CSchema {
    static let lists = EntityTable(recordsOf: CList.self)
    static let items = EntityTable(recordsOf: CItem.self)
    static let notes = EntityTable(recordsOf: CNote.self)
    static let migrations = SwiduxMigrations { m in
        m.register("v1") { db in
            try db.create(table: "clist") { t in
                t.primaryKey("id", .text)
                t.entityPositionColumn()
                t.column("name", .text).notNull()
                t.column("itemCount", .integer).notNull().defaults(to: 0)
            }
            try db.create(table: "citem") { t in
                t.primaryKey("id", .text)
                t.entityPositionColumn()
                t.belongsTo("clist", onDelete: .cascade).notNull()
                t.column("title", .text).notNull()
            }
            try db.create(table: "cnote") { t in
                t.primaryKey("id", .text)
                t.entityPositionColumn()
                t.belongsTo("clist", onDelete: .setNull)
                t.column("text", .text).notNull()
            }
            try db.execute(sql: """
                CREATE TRIGGER citem_count AFTER INSERT ON citem
                BEGIN UPDATE clist SET itemCount = itemCount + 1 WHERE id = NEW.clistId; END
                """)
        }
    }
}

/// One window: a store on a database (its own or shared), flushing only when asked,
/// following the database.
@MainActor
final class CWindow {
    let database: SwiduxDatabase
    let persistence: PersistenceMiddleware<CState>
    let store: Store<CState, CEdit>
    let feed: ChangeFeed

    init(database: SwiduxDatabase, logger: Logger = Logger(label: "test")) throws {
        self.database = database
        var state = CState()
        persistence = try database.persistence(hydrating: &state, [
            .entities(\.notes, in: CSchema.notes),
            .entities(\.items, in: CSchema.items),
            .entities(\.lists, in: CSchema.lists),
        ], clock: TestClock())
        store = Store(initialState: state, reducer: CReducer(), environment: (), persistence: persistence)
        feed = try store.follow(database, every: .milliseconds(5), logger: logger)
    }

    convenience init(path: String, logger: Logger = Logger(label: "test")) throws {
        try self.init(database: SwiduxDatabase(path: path, migrations: CSchema.migrations), logger: logger)
    }

    func send(_ change: @escaping @Sendable (inout CState) -> Void) { store.send(CEdit(change)) }

    /// What the file holds now.
    func file() throws -> CState {
        try database.writer.read { db in
            CState(lists: try CSchema.lists.fetchStore(db), items: try CSchema.items.fetchStore(db), notes: try CSchema.notes.fetchStore(db))
        }
    }

    /// Waits until the store equals the file, at most `seconds`.
    func waitUntilEqualToFile(seconds: Double = 10) async throws -> Bool {
        let deadline = Date().addingTimeInterval(seconds)
        while Date() < deadline {
            if try file() == store.state { return true }
            try await Task.sleep(for: .milliseconds(5))
        }
        return false
    }
}

/// Runs `sql` in a separate process (the `swidux-crash-writer raw-sql` mode: a plain GRDB
/// connection with foreign keys on); returns its exit status.
func runRawSQL(_ sql: String, on path: String, log: String) async throws -> Int32 {
    try await ChildProcess.run([try CrashAtomicityTests.crashWriterPath(), "raw-sql", path, sql], output: log)
}
