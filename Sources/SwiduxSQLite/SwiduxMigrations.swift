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
    /// ```swift
    /// var migrator = DatabaseMigrator()
    /// migrator.registerMigration("v1") { db in try db.createEntityTable(for: Todo.self, named: "todo") }
    /// let migrations = SwiduxMigrations(migrator: migrator)
    /// ```
    public init(migrator: DatabaseMigrator) {
        precondition(!migrator.eraseDatabaseOnSchemaChange,
                     "SwiduxMigrations never erases a database: eraseDatabaseOnSchemaChange must be false")
        self.migrator = migrator
    }

    /// Appends a migration. It runs in a transaction with foreign-key checks deferred
    /// to its end; `identifier` must be unique and must never change once shipped.
    ///
    /// ```swift
    /// migrations.register("v3-todo-due") { db in
    ///     try db.alter(table: "todo") { t in t.add(column: "due", .datetime) }
    /// }
    /// ```
    public mutating func register(_ identifier: String, migrate: @escaping @Sendable (Database) throws -> Void) {
        migrator.registerMigration(identifier, migrate: migrate)
    }

    /// The registered identifiers, in order.
    ///
    /// ```swift
    /// migrations.identifiers  // ["v1", "v2-tags"]
    /// ```
    public var identifiers: [String] { migrator.migrations }
}
