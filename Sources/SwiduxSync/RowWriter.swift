import GRDB
import SwiduxSQLite
import SwiduxSyncWire

/// Writes server rows into the local tables, within one transaction: a tombstone deletes,
/// a live row is upserted (its columns the local table does not have are ignored).
///
/// Made once per transaction. It keeps, per table, the local column names, the delete
/// statement and the upsert statements of the last set of server columns it met, so that
/// the rows of a page (which share their columns) build no SQL (building it per
/// row, and GRDB's generic arguments, were most of a pulled page's apply). Rows of one
/// shape can be written many per statement (``tryWrite(_:table:_:)-([SyncRow],_,_)``):
/// SQLite then reads and writes the outbox's and the journal's `AUTOINCREMENT` counters,
/// and sets up the statement's triggers and journal, once per statement instead of once
/// per row.
struct RowWriter {
    /// Rows per statement of ``tryWrite(_:table:_:)-([SyncRow],_,_)``.
    static let rowsPerStatement = 64

    /// The statements for rows with exactly these server columns.
    private struct Upsert {
        /// The server's column names, sorted.
        let keys: [String]
        /// The ones the local table has (the id aside), in the statements' order.
        let written: [String]
        let statement: Statement
        /// `INSERT INTO t (id, …) VALUES `, ``RowWriter/rowsPerStatement`` times `(?, …)`,
        /// ` ON CONFLICT …`.
        let many: MultiRowSQL
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
                let sql = "DELETE FROM \(table.name.sqlIdentifier) WHERE \(table.idColumn.sqlIdentifier) = ?"
                delete = try db.cachedStatement(sql: sql)
                deletes[table.name] = delete
            }
            try delete.execute(arguments: StatementArguments(databaseValues: [row.id.databaseValue]))
            return
        }
        let upsert = try self.upsert(row.columns ?? [:], table: table, db)
        var values: [DatabaseValue] = []
        values.reserveCapacity(upsert.written.count + 1)
        Self.append(row, upsert, to: &values)
        try upsert.statement.execute(arguments: StatementArguments(databaseValues: values))
    }

    /// Writes `row`; `false` when a constraint (unique key, not null, check) refused it.
    mutating func tryWrite(_ row: SyncRow, table: SyncTable, _ db: Database) throws -> Bool {
        do {
            try write(row, table: table, db)
            return true
        } catch let error as DatabaseError where error.resultCode == .SQLITE_CONSTRAINT {
            forgetStatements(of: table)
            return false
        }
    }

    /// Whether `row` is a live row that can share a statement with `other` (same table and
    /// the same server columns).
    static func canShareStatement(_ row: SyncRow, with other: SyncRow) -> Bool {
        guard !row.deleted, !other.deleted, row.table == other.table else { return false }
        return Self.sameKeys((row.columns ?? [:]).keys, other.columns ?? [:])
    }

    /// Whether `columns` has exactly the names `keys`.
    private static func sameKeys<Keys: Collection<String>>(_ keys: Keys, _ columns: [String: SyncValue]) -> Bool {
        keys.count == columns.count && keys.allSatisfy { columns[$0] != nil }
    }

    /// Writes live `rows` of `table` sharing their server columns (``canShareStatement(_:with:)``),
    /// ``rowsPerStatement`` per statement at most. Returns how many rows are written: fewer
    /// than `rows.count` when a constraint (unique key, not null, check) refused one of a
    /// statement's rows; that statement changed nothing, the ones before it are written.
    mutating func tryWrite(_ rows: ArraySlice<SyncRow>, table: SyncTable, _ db: Database) throws -> Int {
        guard let first = rows.first else { return 0 }
        let upsert = try self.upsert(first.columns ?? [:], table: table, db)
        var written = 0
        var values: [DatabaseValue] = []
        while written < rows.count {
            let chunk = rows.dropFirst(written).prefix(Self.rowsPerStatement)
            values.removeAll(keepingCapacity: true)
            values.reserveCapacity(chunk.count * (upsert.written.count + 1))
            for row in chunk { Self.append(row, upsert, to: &values) }
            do {
                // A cached statement that fails leaves GRDB's cache.
                try upsert.many.execute(rows: chunk.count, values, db)
            } catch let error as DatabaseError where error.resultCode == .SQLITE_CONSTRAINT {
                forgetStatements(of: table)
                return written
            }
            written += chunk.count
        }
        return written
    }

    /// A statement that failed cannot run again: its next reset reports the failure again
    /// (GRDB drops it from its cache for this reason). Without this, the row after a row a
    /// constraint refused was refused too, and parked, with the same error.
    private mutating func forgetStatements(of table: SyncTable) {
        upserts[table.name] = nil
        deletes[table.name] = nil
    }

    private static func append(_ row: SyncRow, _ upsert: Upsert, to values: inout [DatabaseValue]) {
        values.append(row.id.databaseValue)
        let columns = row.columns ?? [:]
        for key in upsert.written { values.append(columns[key]?.databaseValue ?? .null) }
    }

    private mutating func upsert(_ columns: [String: SyncValue], table: SyncTable, _ db: Database) throws -> Upsert {
        if let last = upserts[table.name], Self.sameKeys(last.keys, columns) { return last }
        let upsert = try makeUpsert(keys: columns.keys.sorted(), table: table, db)
        upserts[table.name] = upsert
        return upsert
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
        let id = table.idColumn.sqlIdentifier
        let quoted = written.map { local[$0.lowercased()]!.sqlIdentifier }
        let row = "(" + Array(repeating: "?", count: quoted.count + 1).joined(separator: ", ") + ")"
        let conflict = quoted.isEmpty ? "DO NOTHING" : "DO UPDATE SET " + quoted.map { "\($0) = excluded.\($0)" }.joined(separator: ", ")
        let prefix = "INSERT INTO \(table.name.sqlIdentifier) (\(([id] + quoted).joined(separator: ", "))) VALUES "
        let suffix = " ON CONFLICT(\(id)) \(conflict)"
        return Upsert(keys: keys, written: written, statement: try db.cachedStatement(sql: prefix + row + suffix),
                      many: MultiRowSQL(prefix, row: row, suffix: suffix, full: Self.rowsPerStatement))
    }
}
