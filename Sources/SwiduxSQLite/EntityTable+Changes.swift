import Foundation
import GRDB

/// One table's entries of the journal since a cursor: the latest change per id by another writer.
struct JournalEntry: Sendable {
    let id: DatabaseValue
    let sequence: Int64
    let placed: Bool
}

extension EntityTable {
    /// Loads the current rows of the changed ids (`entries`, one per id). A missing row is a
    /// deletion. Entries whose id or row does not decode are skipped and described in `problems`.
    func loadChanges(_ entries: [JournalEntry], in db: Database, problems: inout [String]) throws -> TableChanges<Entity> {
        let table = name.sqlIdentifier
        let id = idColumn.sqlIdentifier
        let position = positionColumn.sqlIdentifier
        let select = try db.cachedStatement(sql: "SELECT * FROM \(table) WHERE \(id) = ?")
        let nextAtSamePosition = try db.cachedStatement(
            sql: "SELECT \(id) FROM \(table) WHERE \(position) = ? AND \(id) > ? ORDER BY \(id) LIMIT 4")
        let nextAfter = try db.cachedStatement(
            sql: "SELECT \(id) FROM \(table) WHERE \(position) > ? ORDER BY \(position), \(id) LIMIT 4")
        var changes = TableChanges<Entity>()
        var upserts: [(position: Int64, upsert: TableChanges<Entity>.Upsert)] = []
        for entry in entries {
            guard let entityID = Entity.ID.fromDatabaseValue(entry.id) else {
                problems.append("journal entry \(entry.sequence): id \(entry.id) of table \"\(name)\" does not decode as \(Entity.ID.self)")
                continue
            }
            guard let row = try Row.fetchOne(select, arguments: [entry.id]) else {
                changes.deletions.append(.init(id: entityID, sequence: entry.sequence))
                continue
            }
            let entity: Entity
            do {
                entity = try decodeRow(row)
            } catch {
                problems.append("journal entry \(entry.sequence): row \(entry.id) of table \"\(name)\" does not decode: \(error)")
                continue
            }
            let stored: Int64 = row[positionColumn] ?? 0
            var successors: [Entity.ID] = []
            if entry.placed {
                let next = try DatabaseValue.fetchAll(nextAtSamePosition, arguments: [stored, entry.id])
                    + DatabaseValue.fetchAll(nextAfter, arguments: [stored])
                successors = next.prefix(4).compactMap { Entity.ID.fromDatabaseValue($0) }
            }
            upserts.append((stored, .init(entity: entity, successors: successors, moved: entry.placed, sequence: entry.sequence)))
        }
        upserts.sort { $0.position < $1.position || ($0.position == $1.position && $0.upsert.sequence < $1.upsert.sequence) }
        changes.upserts = upserts.map(\.upsert)
        return changes
    }

    /// Every row, for a re-hydration batch.
    func loadAll(in db: Database) throws -> TableChanges<Entity> {
        var changes = TableChanges<Entity>()
        changes.all = try fetchAll(db)
        return changes
    }
}

/// A table a feed follows, type-erased.
struct FeedTable: Sendable {
    let name: String
    let idColumn: String
    let positionColumn: String
    let loadChanges: @Sendable (_ entries: [JournalEntry], _ db: Database, _ problems: inout [String]) throws -> any Sendable
    let loadAll: @Sendable (_ db: Database) throws -> any Sendable

    init<Entity>(_ table: EntityTable<Entity>) {
        name = table.name
        idColumn = table.idColumn
        positionColumn = table.positionColumn
        loadChanges = { entries, db, problems in try table.loadChanges(entries, in: db, problems: &problems) }
        loadAll = { db in try table.loadAll(in: db) }
    }
}
