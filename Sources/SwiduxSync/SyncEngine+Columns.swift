import Foundation
import GRDB
import SwiduxSQLite
import SwiduxSyncWire

/// Merge by column on the client: the columns a local change still has to push,
/// the merged rows a push answer brings back, and the fill of columns a migration added.
extension SyncEngine {
    /// Whether the server said it merges updates by column (a `conflicts` member in an
    /// answer): updates then push only their changed columns.
    func serverMerges(_ db: Database) throws -> Bool {
        Int64.fromDatabaseValue(try schema.value("merges", db)) == 1
    }

    func noteServerMerges(_ db: Database) throws {
        if try !serverMerges(db) { try schema.setValue("merges", 1, db) }
    }

    /// The columns of `key` that its outbox entries will push: `nil` when it has none,
    /// `.whole` when one of them pushes the whole row (an insert, a deletion, an entry without
    /// its columns).
    enum PendingColumns: Equatable {
        case whole
        case some(Set<String>)
    }

    func pendingColumns(_ key: RowKey, _ db: Database) throws -> PendingColumns? {
        let entries = try Row.fetchAll(db.cachedStatement(sql: "SELECT op, cols FROM \(schema.outbox) WHERE tbl = ? AND rid = ?"),
                                       arguments: [key.table, key.id])
        guard !entries.isEmpty else { return nil }
        var named = Set<String>()
        for entry in entries {
            guard entry[0] as String == "U", let cols = entry[1] as String? else { return .whole }
            named.formUnion(SyncSchema.columnNames(cols))
        }
        return .some(named)
    }

    /// Writes the columns of a server row into the local row, but those a local change not
    /// pushed yet still has to push (a row whose change pushes it whole is left as it is),
    /// without outbox entries. Returns whether it wrote.
    func writeServerColumns(_ row: SyncRow, table: SyncTable, only: Set<String>? = nil, _ db: Database) throws -> Bool {
        guard var columns = row.columns else { return false }
        if let only { columns = columns.filter { only.contains($0.key) } }
        let key = RowKey(table: row.table, id: row.id.databaseValue)
        switch try pendingColumns(key, db) {
        case .whole?: return false
        case .some(let named)?: columns = columns.filter { !named.contains($0.key) }
        case nil: break
        }
        guard !columns.isEmpty else { return false }
        // An update of the row only (it exists: the push or the pull brought it), of the
        // columns it has with another value.
        guard let local = try currentColumns(key, table: table, db) else { return false }
        let lowercased = Dictionary(local.map { ($0.key.lowercased(), $0.value) }, uniquingKeysWith: { first, _ in first })
        columns = columns.filter { name, value in
            guard let current = local[name] ?? lowercased[name.lowercased()] else { return false }
            return current != value
        }
        guard !columns.isEmpty else { return false }
        // Local names (SQLite's ignore case), in a stable order.
        let names = columns.keys.sorted()
        let assignments = names.map { name in
            (local.keys.first(where: { $0 == name }) ?? local.keys.first(where: { $0.lowercased() == name.lowercased() }) ?? name)
                .sqlIdentifier + " = ?"
        }
        let sql = "UPDATE \(table.name.sqlIdentifier) SET \(assignments.joined(separator: ", ")) WHERE \(table.idColumn.sqlIdentifier) = ?"
        let arguments = StatementArguments(names.map { columns[$0]!.databaseValue } + [key.id])
        do {
            try SyncSchema.applying(table.name, db) { try db.execute(sql: sql, arguments: arguments) }
        } catch let error as DatabaseError where error.resultCode == .SQLITE_CONSTRAINT {
            // A local constraint refuses the server's values: the row stays as it is.
            return false
        }
        return true
    }

    // MARK: - Columns a migration added

    /// The synced tables whose columns grew since they were last synced, with the progress
    /// of their fill (a cursor of `GET /v1/pull?tables=`).
    func pendingRefills() throws -> [(table: SyncTable, after: Int64)] {
        try writer.read { db in
            try tables.compactMap { table in
                guard let after = Int64.fromDatabaseValue(try schema.value("refill:" + table.name, db)) else { return nil }
                return (table, after)
            }
        }
    }

    /// Applies one page of a table's fill: for each live row of `table` this client holds,
    /// the columns the table gained since it was last synced, as the server has them (but
    /// those a local change not pushed yet will push). When the page is the last one, the
    /// table's synced columns are its current ones and the fill is done. Returns the rows
    /// written.
    @discardableResult
    func refill(_ page: PullResponse, table: SyncTable) throws -> Int {
        try writer.write { db in
            let current = try SyncSchema.columns(of: table, db)
            let noted = String.fromDatabaseValue(try schema.value("columns:" + table.name, db)).map(SyncSchema.columnNames) ?? current
            let before = Set(noted.map { $0.lowercased() })
            // Server names matched as RowWriter matches them (SQLite's names ignore case).
            let added = Set(current.filter { !before.contains($0.lowercased()) }.map { $0.lowercased() })
            let journalMark = try ChangeJournal.lastSequence(db)
            var written = 0
            for row in page.rows where row.table == table.name && !row.deleted {
                guard let columns = row.columns else { continue }
                let wanted = Set(columns.keys.filter { added.contains($0.lowercased()) })
                if !wanted.isEmpty, try writeServerColumns(row, table: table, only: wanted, db) { written += 1 }
            }
            if written > 0 { try ChangeJournal.markOrigin(ChangeJournal.syncOrigin, after: journalMark, db) }
            if page.hasMore {
                try schema.setValue("refill:" + table.name, page.cursor, db)
            } else {
                try db.execute(sql: "DELETE FROM \(schema.state) WHERE key = ?", arguments: ["refill:" + table.name])
                try schema.setValue("columns:" + table.name, current.joined(separator: String(SyncSchema.columnSeparator)), db)
            }
            return written
        }
    }

    /// Checks the synced tables' columns and triggers again when the database's schema changed
    /// since the last check (a migration run while the client lives): a column added is then
    /// compared by the update trigger and filled from the server.
    func checkSchema() throws {
        let version = try writer.read { db in try Int64.fetchOne(db, sql: "PRAGMA schema_version") ?? 0 }
        guard version != schemaVersion.withLock({ $0 }) else { return }
        let installed = try writer.read { db in try schema.isInstalled(in: db, tables: tables) }
        if !installed { try writer.write { db in try schema.install(in: db, tables: tables) } }
        let now = try writer.read { db in try Int64.fetchOne(db, sql: "PRAGMA schema_version") ?? 0 }
        schemaVersion.withLock { $0 = now }
    }
}
