import Foundation
import GRDB

/// How the entities of one ``EntityStore`` live in one database table: its name, how an
/// entity becomes a row and back, and the `position` column that keeps their order.
///
/// Two mappings:
///
/// - **Codable, no extra code** — ``init(named:)``: the table has an `id` primary key,
///   an integer `position` and a `data` column holding the entity's JSON encoding.
///   Create it with `db.createEntityTable(for:named:)`.
/// - **Real columns** — ``init(recordsOf:named:idColumn:positionColumn:)``: the entity
///   is a GRDB record (`FetchableRecord & PersistableRecord`); each property is a column
///   you declare in a migration, so you can index, query and add foreign keys.
///
/// ```swift
/// struct Todo: Codable, Identifiable, Equatable, Sendable {
///     var id: UUID
///     var title: String
///     var done = false
/// }
///
/// let todoTable = EntityTable<Todo>(named: "todo")
/// ```
///
/// Order: hydration returns rows `ORDER BY position`. New rows are appended after the
/// largest stored position, in the order the batch lists them; when the store was
/// reordered (`sort`, `move`, `restore`) every row's position is rewritten.
public struct EntityTable<Entity: Identifiable & Equatable & Sendable>: Sendable
where Entity.ID: DatabaseValueConvertible & Sendable {
    /// The table's name.
    ///
    /// ```swift
    /// EntityTable<Todo>(named: "todo").name  // "todo"
    /// ```
    public let name: String
    /// The primary-key column (`id` unless a record mapping says otherwise).
    ///
    /// ```swift
    /// todoTable.idColumn  // "id"
    /// ```
    public let idColumn: String
    /// The integer column holding each entity's place in the store's order.
    ///
    /// ```swift
    /// todoTable.positionColumn  // "position"
    /// ```
    public let positionColumn: String

    let fetchAllRows: @Sendable (Database, EntityTable) throws -> [Entity]
    let encodeRow: @Sendable (inout RowEncoder, Entity) throws -> Void
    let valueColumns: [String]?   // fixed for the JSON mapping, per batch for records

    /// The Codable mapping: columns `id`, `position` and `data` (the JSON encoding of
    /// the entity). No code beyond `Codable` conformance.
    ///
    /// ```swift
    /// let todoTable = EntityTable<Todo>(named: "todo")
    /// // in a migration:
    /// try db.createEntityTable(for: Todo.self, named: "todo")
    /// ```
    public init(named name: String) where Entity: Codable {
        self.name = name
        self.idColumn = "id"
        self.positionColumn = "position"
        self.valueColumns = ["id", "data"]
        self.fetchAllRows = { db, table in
            let decoder = JSONDecoder()
            var entities: [Entity] = []
            let sql = "SELECT data FROM \(table.name.quotedDatabaseIdentifier) ORDER BY position, id"
            let rows = try Row.fetchCursor(db.cachedStatement(sql: sql))
            while let row = try rows.next() {
                let entity = try row.withUnsafeData(atIndex: 0) { data -> Entity in
                    do {
                        return try decoder.decode(Entity.self, from: data ?? Data())
                    } catch {
                        throw SwiduxDatabaseError(path: nil, cause: .undecodable(table: table.name), underlying: error)
                    }
                }
                entities.append(entity)
            }
            return entities
        }
        self.encodeRow = { encoder, entity in
            let data: Data
            do { data = try encoder.json.encode(entity) } catch {
                throw SwiduxDatabaseError(path: nil, cause: .unencodable(table: name), underlying: error)
            }
            encoder.values = [entity.id.databaseValue, String(decoding: data, as: UTF8.self).databaseValue]
        }
    }

    /// The record mapping: the entity's GRDB record encoding gives the columns, plus the
    /// integer ``positionColumn`` this library maintains. Declare the table yourself,
    /// with foreign keys if entities reference each other.
    ///
    /// ```swift
    /// struct Item: Codable, Identifiable, Equatable, Sendable, FetchableRecord, PersistableRecord {
    ///     var id: String
    ///     var listId: String
    ///     var title: String
    /// }
    /// let itemTable = EntityTable(recordsOf: Item.self)      // table "item"
    /// // in a migration:
    /// try db.create(table: "item") { t in
    ///     t.primaryKey("id", .text)
    ///     t.entityPositionColumn()
    ///     t.belongsTo("list").notNull()   // listId REFERENCES list(id)
    ///     t.column("title", .text).notNull()
    /// }
    /// ```
    ///
    /// - Parameters:
    ///   - type: The record type.
    ///   - name: The table; `Entity.databaseTableName` by default.
    ///   - idColumn: The primary-key column the id is stored in.
    ///   - positionColumn: The integer column for the order; must not be a property of the record.
    public init(
        recordsOf type: Entity.Type = Entity.self,
        named name: String? = nil,
        idColumn: String = "id",
        positionColumn: String = "position"
    ) where Entity: FetchableRecord & PersistableRecord {
        let name = name ?? Entity.databaseTableName
        self.name = name
        self.idColumn = idColumn
        self.positionColumn = positionColumn
        self.valueColumns = nil
        self.fetchAllRows = { db, table in
            let sql = "SELECT * FROM \(table.name.quotedDatabaseIdentifier) ORDER BY \(table.positionColumn.quotedDatabaseIdentifier), \(table.idColumn.quotedDatabaseIdentifier)"
            do {
                return try Entity.fetchAll(db.cachedStatement(sql: sql))
            } catch let error as DatabaseError {
                throw error
            } catch {
                throw SwiduxDatabaseError(path: nil, cause: .undecodable(table: table.name), underlying: error)
            }
        }
        self.encodeRow = { encoder, entity in
            let dictionary: [String: DatabaseValue]
            do { dictionary = try entity.databaseDictionary } catch {
                throw SwiduxDatabaseError(path: nil, cause: .unencodable(table: name), underlying: error)
            }
            if encoder.columns.isEmpty || encoder.columns.count != dictionary.count
                || !encoder.columns.allSatisfy({ dictionary[$0] != nil }) {
                let columns = dictionary.keys.sorted()
                let lowercased = Set(columns.map { $0.lowercased() })
                guard lowercased.contains(idColumn.lowercased()), !lowercased.contains(positionColumn.lowercased()) else {
                    throw SwiduxDatabaseError(path: nil, cause: .unencodable(table: name), underlying: MappingMismatch(
                        message: "the record must encode the id column \"\(idColumn)\" and must not encode the position column \"\(positionColumn)\"; encoded: \(columns)"))
                }
                encoder.columns = columns
            }
            encoder.values = encoder.columns.map { dictionary[$0]! }
        }
    }

    // MARK: - Reading

    /// Every entity of the table, in stored order. Use inside your own GRDB read.
    ///
    /// ```swift
    /// let todos = try database.writer.read { db in try todoTable.fetchAll(db) }
    /// ```
    public func fetchAll(_ db: Database) throws -> [Entity] {
        try fetchAllRows(db, self)
    }

    /// The table's entities as a hydrated ``EntityStore`` (no changes recorded).
    ///
    /// ```swift
    /// let todos = try database.writer.read { db in try todoTable.fetchStore(db) }
    /// ```
    public func fetchStore(_ db: Database) throws -> EntityStore<Entity> {
        EntityStore(try fetchAll(db))
    }

    // MARK: - Writing

    /// Applies one flush's batch: deletions, then upserts (one cached
    /// `INSERT … ON CONFLICT DO UPDATE` statement, new rows appended after the largest
    /// position), then — if the batch carries an order — every row's position.
    ///
    /// Call it inside a transaction; ``SwiduxDatabase/stateWriter(for:table:)`` does.
    ///
    /// ```swift
    /// try await database.writer.write { db in
    ///     try todoTable.write(WriteBatch(writes: [todo], deletions: [oldID]), in: db)
    /// }
    /// ```
    @discardableResult
    public func write(_ batch: WriteBatch<Entity>, in db: Database) throws -> WriteResult<Entity.ID> {
        let table = name.quotedDatabaseIdentifier
        let id = idColumn.quotedDatabaseIdentifier
        let position = positionColumn.quotedDatabaseIdentifier

        if !batch.deletions.isEmpty {
            let delete = try db.cachedStatement(sql: "DELETE FROM \(table) WHERE \(id) = ?")
            for deleted in batch.deletions {
                try delete.execute(arguments: [deleted.databaseValue])
            }
        }

        if !batch.writes.isEmpty {
            let maxPosition = try Int64.fetchOne(
                db.cachedStatement(sql: "SELECT max(\(position)) FROM \(table)")) ?? -1
            var encoder = RowEncoder()
            if let valueColumns { encoder.columns = valueColumns }
            var statementColumns: [String] = []
            var upsert: Statement?
            for (offset, entity) in batch.writes.enumerated() {
                try encodeRow(&encoder, entity)
                if upsert == nil || statementColumns != encoder.columns {
                    statementColumns = encoder.columns
                    upsert = try db.cachedStatement(sql: upsertSQL(columns: statementColumns))
                }
                var values = encoder.values
                values.append((maxPosition + 1 + Int64(offset)).databaseValue)
                try upsert!.execute(arguments: StatementArguments(values))
            }
        }

        if let order = batch.order {
            let update = try db.cachedStatement(sql: "UPDATE \(table) SET \(position) = ? WHERE \(id) = ?")
            for (offset, orderedID) in order.enumerated() {
                try update.execute(arguments: [Int64(offset).databaseValue, orderedID.databaseValue])
            }
        }
        return .none  // TODO(sqlite): report vanished rows (delete wins over a stale update)
    }

    private func upsertSQL(columns: [String]) -> String {
        let quoted = columns.map(\.quotedDatabaseIdentifier)
        let id = idColumn.quotedDatabaseIdentifier
        let updates = columns.filter { $0.lowercased() != idColumn.lowercased() }
            .map { "\($0.quotedDatabaseIdentifier) = excluded.\($0.quotedDatabaseIdentifier)" }
        let placeholders = Array(repeating: "?", count: columns.count + 1).joined(separator: ", ")
        let conflict = updates.isEmpty ? "DO NOTHING" : "DO UPDATE SET \(updates.joined(separator: ", "))"
        return "INSERT INTO \(name.quotedDatabaseIdentifier) (\((quoted + [positionColumn.quotedDatabaseIdentifier]).joined(separator: ", "))) "
            + "VALUES (\(placeholders)) ON CONFLICT(\(id)) \(conflict)"
    }
}

/// A record whose encoding does not fit its ``EntityTable``.
struct MappingMismatch: Error, CustomStringConvertible {
    let message: String
    var description: String { message }
}

/// Scratch space reused across the rows of one batch.
struct RowEncoder {
    let json = JSONEncoder()
    var columns: [String] = []
    var values: [DatabaseValue] = []
}
