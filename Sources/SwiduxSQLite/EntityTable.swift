import Foundation
import GRDB

/// How the entities of one `EntityStore` live in one database table: its name, how an
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
/// Order: hydration returns rows `ORDER BY position`. Inserted rows are appended after
/// the largest stored position, in the order the batch lists them; updated rows keep
/// theirs; when the store was reordered (`sort`, `move`, `restore`) every row's position
/// is rewritten, rows written by someone else staying after the store's.
///
/// Delete wins over a stale update: an update whose row another writer deleted is not
/// re-inserted but reported in `WriteResult.vanished` (see ``write(_:in:)``).
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
    /// The Codable mapping's `data` column: the entity's JSON (`nil` for records).
    let encodeJSON: (@Sendable (JSONEncoder, Entity) throws -> String)?
    /// One row (`SELECT *`) to an entity, for the change feed (EntityTable+Changes).
    let decodeRow: @Sendable (Row) throws -> Entity

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
        self.decodeRow = { row in try JSONDecoder().decode(Entity.self, from: row["data"] as Data? ?? Data()) }
        self.fetchAllRows = { db, table in
            let decoder = JSONDecoder()
            var entities: [Entity] = []
            let sql = "SELECT data FROM \(table.name.sqlIdentifier) ORDER BY position, id"
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
        self.encodeJSON = { json, entity in
            do { return String(decoding: try json.encode(entity), as: UTF8.self) } catch {
                throw SwiduxDatabaseError(path: nil, cause: .unencodable(table: name), underlying: error)
            }
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
        self.encodeJSON = nil
        self.decodeRow = { row in try Entity(row: row) }
        self.fetchAllRows = { db, table in
            let sql = "SELECT * FROM \(table.name.sqlIdentifier) ORDER BY \(table.positionColumn.sqlIdentifier), \(table.idColumn.sqlIdentifier)"
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

    /// The table's entities as a hydrated `EntityStore` (no changes recorded).
    ///
    /// ```swift
    /// let todos = try database.writer.read { db in try todoTable.fetchStore(db) }
    /// ```
    public func fetchStore(_ db: Database) throws -> EntityStore<Entity> {
        EntityStore(try fetchAll(db))
    }

    // MARK: - Writing

    /// Applies one flush's batch and reports the rows that were gone.
    ///
    /// 1. **Deletions**, one cached `DELETE` statement; an id that deletes no row is
    ///    reported in `WriteResult.vanished` (another writer deleted it first).
    /// 2. **Writes**, one cached statement per row. An *insertion*
    ///    (`WriteBatch.insertions`) is an `INSERT … ON CONFLICT(id) DO UPDATE`, a new row
    ///    appended after the largest position. Any other write is an *update*:
    ///    `UPDATE … WHERE id = ?`, the row keeping its position; if no row has the id —
    ///    another writer deleted it since the store loaded it — nothing is written and the
    ///    id is reported in `WriteResult.vanished`: **delete wins over a stale update**.
    /// 3. **Order**, if the batch carries one: the listed rows take the listed order;
    ///    stored rows the order does not list (written by someone else) keep their
    ///    relative order after the listed ones.
    ///
    /// Call it inside a transaction; ``SwiduxDatabase/stateWriter(for:table:)`` does.
    ///
    /// ```swift
    /// let result = try await database.writer.write { db in
    ///     try todoTable.write(WriteBatch(writes: [todo], deletions: [oldID], insertions: []), in: db)
    /// }
    /// if result.vanished.contains(todo.id) { print("\(todo.id) was deleted by someone else") }
    /// ```
    @discardableResult
    public func write(_ batch: WriteBatch<Entity>, in db: Database) throws -> WriteResult<Entity.ID> {
        let table = name.sqlIdentifier
        let id = idColumn.sqlIdentifier
        let position = positionColumn.sqlIdentifier
        var vanished: [Entity.ID] = []

        if !batch.deletions.isEmpty {
            let delete = try db.cachedStatement(sql: "DELETE FROM \(table) WHERE \(id) = ?")
            for deleted in batch.deletions {
                try delete.execute(arguments: [deleted.databaseValue])
                if db.changesCount == 0 { vanished.append(deleted) }
            }
        }

        if !batch.writes.isEmpty, let encodeJSON, let valueColumns {
            // The Codable mapping: fixed columns, each row's three values bound directly.
            let json = JSONEncoder()
            var nextPosition: Int64?   // fetched at the first insertion
            var upsert: Statement?
            var update: Statement?
            for entity in batch.writes {
                let data = try encodeJSON(json, entity).databaseValue
                let entityID = entity.id.databaseValue
                if batch.insertions.contains(entity.id) {
                    if nextPosition == nil {
                        nextPosition = (try Int64.fetchOne(db.cachedStatement(sql: "SELECT max(\(position)) FROM \(table)")) ?? -1) + 1
                    }
                    if upsert == nil { upsert = try db.cachedStatement(sql: upsertSQL(columns: valueColumns)) }
                    try upsert!.execute(arguments: [entityID, data, nextPosition!.databaseValue])
                    nextPosition! += 1
                } else {
                    if update == nil { update = try db.cachedStatement(sql: updateSQL(columns: valueColumns, idIndex: 0)) }
                    try update!.execute(arguments: [data, entityID])
                    if db.changesCount == 0 { vanished.append(entity.id) }
                }
            }
        } else if !batch.writes.isEmpty {
            var nextPosition: Int64?   // fetched at the first insertion
            var encoder = RowEncoder()
            if let valueColumns { encoder.columns = valueColumns }
            var statementColumns: [String]?
            var idIndex = 0
            var upsert: Statement?
            var update: Statement?
            for entity in batch.writes {
                try encodeRow(&encoder, entity)
                if statementColumns != encoder.columns {
                    statementColumns = encoder.columns
                    idIndex = encoder.columns.firstIndex { $0.lowercased() == idColumn.lowercased() } ?? 0
                    upsert = nil
                    update = nil
                }
                if batch.insertions.contains(entity.id) {
                    if nextPosition == nil {
                        nextPosition = (try Int64.fetchOne(db.cachedStatement(sql: "SELECT max(\(position)) FROM \(table)")) ?? -1) + 1
                    }
                    if upsert == nil { upsert = try db.cachedStatement(sql: upsertSQL(columns: encoder.columns)) }
                    var values = encoder.values
                    values.append(nextPosition!.databaseValue)
                    nextPosition! += 1
                    try upsert!.execute(arguments: StatementArguments(databaseValues: values))
                } else {
                    if update == nil { update = try db.cachedStatement(sql: updateSQL(columns: encoder.columns, idIndex: idIndex)) }
                    var values = encoder.values
                    values.append(values.remove(at: idIndex))
                    try update!.execute(arguments: StatementArguments(databaseValues: values))
                    if db.changesCount == 0 { vanished.append(entity.id) }
                }
            }
        }

        if let order = batch.order, !order.isEmpty {
            try writeOrder(order, in: db)
        }
        return WriteResult(vanished: vanished)
    }

    /// Gives the rows of `order` the positions of their offsets. When the table holds
    /// rows the order does not list, the listed ones are placed before all of them:
    /// positions start at the smallest stored position minus the count.
    private func writeOrder(_ order: [Entity.ID], in db: Database) throws {
        let table = name.sqlIdentifier
        let position = positionColumn.sqlIdentifier
        let update = try db.cachedStatement(
            sql: "UPDATE \(table) SET \(position) = ? WHERE \(idColumn.sqlIdentifier) = ?")
        let minimum = try db.cachedStatement(sql: "SELECT min(\(position)) FROM \(table)")
        func place(from base: Int64) throws -> Int {
            var placed = 0
            for (offset, orderedID) in order.enumerated() {
                try update.execute(arguments: [(base + Int64(offset)).databaseValue, orderedID.databaseValue])
                placed += db.changesCount
            }
            return placed
        }
        let total = try Int.fetchOne(db.cachedStatement(sql: "SELECT count(*) FROM \(table)")) ?? 0
        if total == order.count {
            // The usual case: the order lists every row (checked below).
            let placed = try place(from: 0)
            guard placed < total else { return }
        }
        let smallest = try Int64.fetchOne(minimum) ?? 0
        _ = try place(from: smallest - Int64(order.count))
    }

    private func updateSQL(columns: [String], idIndex: Int) -> String {
        var assigned = columns
        let idName = assigned.remove(at: idIndex)
        let assignments = assigned.isEmpty
            ? "\(idName.sqlIdentifier) = \(idName.sqlIdentifier)"
            : assigned.map { "\($0.sqlIdentifier) = ?" }.joined(separator: ", ")
        return "UPDATE \(name.sqlIdentifier) SET \(assignments) WHERE \(idName.sqlIdentifier) = ?"
    }

    private func upsertSQL(columns: [String]) -> String {
        let quoted = columns.map(\.sqlIdentifier)
        let id = idColumn.sqlIdentifier
        let updates = columns.filter { $0.lowercased() != idColumn.lowercased() }
            .map { "\($0.sqlIdentifier) = excluded.\($0.sqlIdentifier)" }
        let placeholders = Array(repeating: "?", count: columns.count + 1).joined(separator: ", ")
        let conflict = updates.isEmpty ? "DO NOTHING" : "DO UPDATE SET \(updates.joined(separator: ", "))"
        return "INSERT INTO \(name.sqlIdentifier) (\((quoted + [positionColumn.sqlIdentifier]).joined(separator: ", "))) "
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
