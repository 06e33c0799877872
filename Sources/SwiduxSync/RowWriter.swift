import GRDB
import SwiduxSQLite
import SwiduxSyncWire

/// Writes server rows into the local tables, within one transaction: a tombstone deletes,
/// a live row is upserted (its columns the local table does not have are ignored).
///
/// Made once per transaction. It keeps, per table, the local column names, the delete statement and the
/// upsert statement of the last set of server columns it met, so that the rows of a page (which
/// share their columns) build no SQL (issue 31: building it per row, and GRDB's generic
/// arguments, were most of a pulled page's apply).
struct RowWriter {
    /// The statement for rows with exactly these server columns.
    private struct Upsert {
        /// The server's column names, sorted.
        let keys: [String]
        /// The ones the local table has (the id aside), in the statement's order.
        let written: [String]
        let statement: Statement
    }

    private var localColumns: [String: [String: String]] = [:]
    private var upserts: [String: Upsert] = [:]
    private var deletes: [String: Statement] = [:]

    /// Writes `row`. A constraint failure of the statement (other than a deferred foreign
    /// key) is thrown; the statement changed nothing.
    mutating func write(_ row: SyncRow, table: SyncTable, _ db: Database) throws {
        if row.deleted {
            let delete: Statement
            if let cached = deletes[table.name] {
                delete = cached
            } else {
                let sql = "DELETE FROM \(table.name.quotedDatabaseIdentifier) WHERE \(table.idColumn.quotedDatabaseIdentifier) = ?"
                delete = try db.cachedStatement(sql: sql)
                deletes[table.name] = delete
            }
            try delete.execute(arguments: StatementArguments(databaseValues: [row.id.databaseValue]))
            return
        }
        let columns = row.columns ?? [:]
        let upsert: Upsert
        if let last = upserts[table.name], last.keys.count == columns.count, last.keys.allSatisfy({ columns[$0] != nil }) {
            upsert = last
        } else {
            upsert = try makeUpsert(keys: columns.keys.sorted(), table: table, db)
            upserts[table.name] = upsert
        }
        var values: [DatabaseValue] = [row.id.databaseValue]
        values.reserveCapacity(upsert.written.count + 1)
        for key in upsert.written { values.append(columns[key]?.databaseValue ?? .null) }
        try upsert.statement.execute(arguments: StatementArguments(databaseValues: values))
    }

    /// Writes `row`; `false` when a constraint (unique key, not null, check) refused it.
    mutating func tryWrite(_ row: SyncRow, table: SyncTable, _ db: Database) throws -> Bool {
        do {
            try write(row, table: table, db)
            return true
        } catch let error as DatabaseError where error.resultCode == .SQLITE_CONSTRAINT {
            return false
        }
    }

    private mutating func makeUpsert(keys: [String], table: SyncTable, _ db: Database) throws -> Upsert {
        let local: [String: String]
        if let cached = localColumns[table.name] {
            local = cached
        } else {
            // Lowercased name → name.
            local = Dictionary(try db.columns(in: table.name).map { ($0.name.lowercased(), $0.name) }, uniquingKeysWith: { first, _ in first })
            localColumns[table.name] = local
        }
        let idColumn = table.idColumn.lowercased()
        let written = keys.filter { local[$0.lowercased()] != nil && $0.lowercased() != idColumn }
        let id = table.idColumn.quotedDatabaseIdentifier
        let quoted = written.map { local[$0.lowercased()]!.quotedDatabaseIdentifier }
        let placeholders = Array(repeating: "?", count: quoted.count + 1).joined(separator: ", ")
        let conflict = quoted.isEmpty ? "DO NOTHING" : "DO UPDATE SET " + quoted.map { "\($0) = excluded.\($0)" }.joined(separator: ", ")
        let sql = "INSERT INTO \(table.name.quotedDatabaseIdentifier) (\(([id] + quoted).joined(separator: ", "))) VALUES (\(placeholders)) ON CONFLICT(\(id)) \(conflict)"
        return Upsert(keys: keys, written: written, statement: try db.cachedStatement(sql: sql))
    }
}
