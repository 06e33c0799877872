import GRDB
import SwiduxSyncWire

extension SyncEngine {
    /// Writes the pulled live `row`, which a constraint refused, when what refused it is a
    /// unique index holding its values in a local row of another id (``UniqueClashes``): the
    /// later of the two rows in the server's order is renamed, then the row is written.
    /// Returns `false` when the row is still refused (another constraint, or nothing to
    /// rename): the caller parks it, as before.
    func writeResolvingClash(_ row: SyncRow, table: SyncTable, rows: inout RowWriter, clashes: inout UniqueClashes,
                             touched: [RowKey: SyncRow], _ db: Database) throws -> Bool {
        guard !row.deleted else { return false }
        let local = try clashes.columns(of: table, db)
        let localName = Dictionary(local.map { ($0.lowercased(), $0) }, uniquingKeysWith: { first, _ in first })
        let renamer = renamers.withLock { $0[table.name] }
        let key = RowKey(table: table.name, id: row.id.databaseValue)
        var current = row
        // Each round renames one row of one clash; a row may clash in several indexes.
        for _ in 0..<8 {
            var values: [String: SyncValue] = [table.idColumn: row.id]
            for (name, value) in current.columns ?? [:] {
                if let name = localName[name.lowercased()] { values[name] = value }
            }
            guard let (otherID, index) = try clashes.clash(values, id: key.id, table: table, db) else { return false }
            let otherKey = RowKey(table: table.name, id: otherID)
            let otherVersion = try touched[otherKey]?.version ?? baseVersion(otherKey, db)
            // A local row not pushed yet (or never synced) is the latest in the server's order.
            let otherIsLater = try hasOutboxEntry(otherKey, db) || otherVersion.map { $0 > row.version } ?? true
            if otherIsLater {
                let quotedID = table.idColumn.sqlIdentifier, name = table.name.sqlIdentifier
                guard let stored = try Row.fetchOne(db, sql: "SELECT * FROM \(name) WHERE \(quotedID) = ?", arguments: [otherID])
                else { return false }
                var otherValues: [String: SyncValue] = [:]
                for (column, value) in stored { otherValues[column] = SyncValue(value) }
                guard let rename = try clashes.rename(otherValues, id: otherID, in: index, table: table, renamer: renamer, db)
                else { return false }
                let changes = Self.changes(rename, localName)
                guard !changes.isEmpty else { return false }
                let assignments = changes.map { "\($0.key.sqlIdentifier) = ?" }.joined(separator: ", ")
                do {
                    // No outbox entry now: the rename is queued once the pulled rows' echo is removed.
                    try SyncSchema.applying(table.name, db) {
                        try db.execute(sql: "UPDATE \(name) SET \(assignments) WHERE \(quotedID) = ?",
                                       arguments: StatementArguments(changes.map(\.value.databaseValue) + [otherID]))
                    }
                } catch let error as DatabaseError where error.resultCode == .SQLITE_CONSTRAINT {
                    return false
                }
                let listed = localName[rename.column.lowercased()] ?? rename.column
                clashes.note(.init(key: otherKey, table: table, columns: changes.map(\.key), listed: listed,
                                   old: otherValues[listed] ?? .null, new: rename.value, version: otherVersion ?? 0))
            } else {
                guard let rename = try clashes.rename(values, id: key.id, in: index, table: table, renamer: renamer, db)
                else { return false }
                let changes = Self.changes(rename, localName)
                guard !changes.isEmpty else { return false }
                var columns = current.columns ?? [:]
                for (column, value) in changes {
                    let serverName = columns.keys.first { $0.lowercased() == column.lowercased() } ?? column
                    columns[serverName] = value
                }
                current.columns = columns
                let listed = localName[rename.column.lowercased()] ?? rename.column
                clashes.note(.init(key: key, table: table, columns: changes.map(\.key), listed: listed,
                                   old: values[listed] ?? .null, new: rename.value, version: row.version))
            }
            if try rows.tryWrite(current, table: table, db) { return true }
        }
        return false
    }

    /// The columns a rename writes, by local name, in a stable order.
    private static func changes(_ rename: SyncUniqueClash.Rename, _ localName: [String: String]) -> [(key: String, value: SyncValue)] {
        var changes: [String: SyncValue] = [:]
        for (column, value) in rename.also { changes[localName[column.lowercased()] ?? column] = value }
        changes[localName[rename.column.lowercased()] ?? rename.column] = rename.value
        // Only the table's columns: a name it does not have cannot be written.
        return changes.filter { localName[$0.key.lowercased()] != nil }.sorted { $0.key < $1.key }
    }
}
