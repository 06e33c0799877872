import Foundation
import GRDB

/// Creating entity tables inside GRDB migrations.
extension Database {
    /// Creates the table of the Codable mapping (``EntityTable/init(named:)``): an `id`
    /// primary key (INTEGER for integer ids, TEXT for strings, BLOB for UUIDs), an
    /// indexed integer `position` and a `data` TEXT column holding the JSON. Call it
    /// from a migration.
    ///
    /// ```swift
    /// migrations.register("v1") { db in
    ///     try db.createEntityTable(for: Todo.self, named: "todo")
    /// }
    /// ```
    public func createEntityTable<Entity: Identifiable & Codable>(for type: Entity.Type, named name: String) throws {
        try create(table: name) { t in
            t.primaryKey("id", Self.columnType(for: Entity.ID.self))
            t.entityPositionColumn()
            t.column("data", .text).notNull()
        }
    }

    /// Creates the table of a Codable ``EntityTable``.
    ///
    /// ```swift
    /// static let todos = EntityTable<Todo>(named: "todo")
    /// migrations.register("v1") { db in try db.createEntityTable(Self.todos) }
    /// ```
    public func createEntityTable<Entity>(_ table: EntityTable<Entity>) throws where Entity: Codable {
        try createEntityTable(for: Entity.self, named: table.name)
    }

    static func columnType(for idType: Any.Type) -> Database.ColumnType {
        switch idType {
        case is any BinaryInteger.Type: .integer
        case is String.Type: .text
        case is UUID.Type, is Data.Type: .blob
        default: .any
        }
    }
}

/// Declaring the columns of entity tables.
extension TableDefinition {
    /// Adds the indexed integer column an ``EntityTable`` keeps the order in
    /// (`position`, not null, default 0). For tables of the record mapping.
    ///
    /// ```swift
    /// try db.create(table: "item") { t in
    ///     t.primaryKey("id", .text)
    ///     t.entityPositionColumn()
    ///     t.column("title", .text).notNull()
    /// }
    /// ```
    @discardableResult
    public func entityPositionColumn(_ name: String = "position") -> ColumnDefinition {
        column(name, .integer).notNull().defaults(to: 0).indexed()
    }
}
