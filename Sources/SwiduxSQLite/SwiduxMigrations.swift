import GRDB

/// The versioned schema of your app's database: migrations run once each, in the
/// order you register them, when ``SwiduxDatabase`` opens the file.
///
/// Never edit or remove a migration that shipped: register a new one. A database
/// migrated by a newer app (it records migrations this one does not know) is refused
/// with ``SwiduxDatabaseError/Cause/newerSchema(unknownMigrations:)``.
///
/// ```swift
/// extension SwiduxMigrations {
///     static var app: SwiduxMigrations {
///         var migrations = SwiduxMigrations()
///         migrations.register("v1") { db in
///             try db.createEntityTable(for: Todo.self, named: "todo")
///         }
///         migrations.register("v2-tags") { db in
///             try db.createEntityTable(for: Tag.self, named: "tag")
///         }
///         return migrations
///     }
/// }
/// ```
///
/// A wrapper around GRDB's `DatabaseMigrator`, available as ``migrator``.
public struct SwiduxMigrations: Sendable {
    /// The GRDB migrator, for what this type does not expose.
    ///
    /// ```swift
    /// let names = migrations.migrator.migrations
    /// ```
    public private(set) var migrator: DatabaseMigrator

    /// The migrations registered with ``register(_:migrate:)``, which ``SwiduxDatabase``
    /// runs itself (all pending ones in one immediate transaction); `nil` when wrapping a
    /// GRDB migrator (``init(migrator:)``), which GRDB runs.
    var steps: [Step]? = []

    struct Step: Sendable {
        let identifier: String
        let migrate: @Sendable (Database) throws -> Void
    }

    /// Whether a database that has tables but no migration history (no `grdb_migrations`
    /// table) is adopted: its pending migrations — all of them — run on it. `false` by
    /// default: such a file belongs to some other code, and ``SwiduxDatabase`` refuses it
    /// with ``SwiduxDatabaseError/Cause/foreignSchema(detail:)`` without writing to it.
    /// Set it when your app used the file before it used migrations; the migrations must
    /// then cope with the tables already there (`create(table:options: .ifNotExists)`).
    ///
    /// ```swift
    /// var migrations = SwiduxMigrations.app
    /// migrations.adoptsUnversionedDatabases = true   // files written by version 1.0, before migrations
    /// let database = try SwiduxDatabase(path: path, migrations: migrations)
    /// ```
    public var adoptsUnversionedDatabases = false

    /// No migrations yet.
    ///
    /// ```swift
    /// var migrations = SwiduxMigrations()
    /// ```
    public init() {
        migrator = DatabaseMigrator()
    }

    /// Builds the migrations in a closure.
    ///
    /// ```swift
    /// let migrations = SwiduxMigrations { m in
    ///     m.register("v1") { db in try db.createEntityTable(for: Todo.self, named: "todo") }
    /// }
    /// ```
    public init(_ build: (inout SwiduxMigrations) throws -> Void) rethrows {
        self.init()
        try build(&self)
    }

    /// Wraps an existing GRDB migrator. It must not erase the database on schema change.
    ///
    /// GRDB runs such a migrator, one transaction per migration. When several processes
    /// open a new file at once and one of them loses the race for a migration (its
    /// transaction fails and rolls back because another process applied it meanwhile),
    /// ``SwiduxDatabase`` re-reads what is applied and continues; prefer
    /// ``register(_:migrate:)``, whose migrations run in one transaction.
    ///
    /// ```swift
    /// var migrator = DatabaseMigrator()
    /// migrator.registerMigration("v1") { db in try db.createEntityTable(for: Todo.self, named: "todo") }
    /// let migrations = SwiduxMigrations(migrator: migrator)
    /// ```
    public init(migrator: DatabaseMigrator) {
        precondition(!migrator.eraseDatabaseOnSchemaChange,
                     "SwiduxMigrations never erases a database: eraseDatabaseOnSchemaChange must be false")
        self.migrator = migrator
        self.steps = nil
    }

    /// Appends a migration. `identifier` must be unique and must never change once shipped.
    ///
    /// The pending migrations run in **one immediate write transaction**, with foreign
    /// keys checked at its end: the check of what is applied and the migrations happen
    /// under the same write lock, so several processes opening a new file at once each
    /// see either none or all of them applied, never run one twice, and a failure leaves
    /// the file as it was.
    ///
    /// ```swift
    /// migrations.register("v3-todo-due") { db in
    ///     try db.alter(table: "todo") { t in t.add(column: "due", .datetime) }
    /// }
    /// ```
    public mutating func register(_ identifier: String, migrate: @escaping @Sendable (Database) throws -> Void) {
        migrator.registerMigration(identifier, migrate: migrate)
        steps?.append(Step(identifier: identifier, migrate: migrate))
    }

    /// The registered identifiers, in order.
    ///
    /// ```swift
    /// migrations.identifiers  // ["v1", "v2-tags"]
    /// ```
    public var identifiers: [String] { migrator.migrations }
}
