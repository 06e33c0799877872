import Foundation
import GRDB
import SwiduxSyncWire

/// Resolves, within one transaction applying pulled rows, the rows a `UNIQUE` index refuses
/// because a local row of another id holds the same values: a constraint only the merge of
/// two devices breaks (each made a list "Shopping" offline). Left alone, the pulled row
/// waited forever, and the rows referring to it with it.
///
/// The rule, the same on every device: of the two rows, the one later in the server's order
/// is renamed (a local row with a change not pushed yet, or never synced, counts as the
/// latest; otherwise the versions compare); the earlier one keeps its values. The rename
/// changes the index's text column (``SyncUniqueClash``, or the table's renamer), with the
/// first number that leaves no clash with a local row, and is pushed like an ordinary edit
/// of that row; it is listed as a conflict of kind `.renamed` (``SyncConflict``).
///
/// Made once per transaction: the unique indexes of a table are read from the schema once.
struct UniqueClashes {
    /// A unique index over columns only (no expression, not partial, not the primary key).
    struct Index {
        let columns: [(name: String, collation: String)]
    }

    /// One rename this transaction made, pushed and listed once the transaction's echo of
    /// pulled rows is removed (``finish(clientID:outbox:_:)``).
    struct Renamed {
        let key: RowKey
        let table: SyncTable
        let columns: [String]
        let listed: String
        let old: SyncValue
        let new: SyncValue
        let version: Int64
    }

    private var indexes: [String: [Index]] = [:]
    private var foreignKeyColumns: [String: Set<String>] = [:]
    private var localColumns: [String: [String]] = [:]
    private(set) var renamed: [Renamed] = []

    /// The unique indexes of `table` (lowercased names aside, as declared).
    mutating func indexes(of table: SyncTable, _ db: Database) throws -> [Index] {
        if let cached = indexes[table.name] { return cached }
        var found: [Index] = []
        let name = table.name.sqlIdentifier
        for index in try Row.fetchAll(db, sql: "PRAGMA index_list(\(name))") {
            guard (index["unique"] as Int64?) == 1, (index["origin"] as String?) != "pk", (index["partial"] as Int64?) != 1,
                  let indexName = index["name"] as String? else { continue }
            var columns: [(String, String)] = []
            var usable = true
            for column in try Row.fetchAll(db, sql: "PRAGMA index_xinfo(\(indexName.sqlIdentifier))")
            where (column["key"] as Int64?) == 1 {
                // An expression (no name) cannot be compared or renamed here.
                guard let columnName = column["name"] as String? else { usable = false; break }
                columns.append((columnName, column["coll"] as String? ?? "BINARY"))
            }
            if usable, !columns.isEmpty { found.append(Index(columns: columns)) }
        }
        indexes[table.name] = found
        return found
    }

    /// A local row of another id holding `values` (local column names) in one of the unique
    /// indexes of `table`: its id and the index. Indexes with a value missing or `NULL` are
    /// not looked at (`NULL`s never clash).
    mutating func clash(_ values: [String: SyncValue], id: DatabaseValue, table: SyncTable,
                        _ db: Database) throws -> (id: DatabaseValue, index: Index)? {
        let lowered = Dictionary(values.map { ($0.key.lowercased(), $0.value) }, uniquingKeysWith: { first, _ in first })
        for index in try indexes(of: table, db) {
            if let other = try holder(of: index, lowered, except: id, table: table, db) { return (other, index) }
        }
        return nil
    }

    private func holder(of index: Index, _ lowered: [String: SyncValue], except id: DatabaseValue, table: SyncTable,
                        _ db: Database) throws -> DatabaseValue? {
        var conditions: [String] = []
        var arguments: [DatabaseValue] = []
        for column in index.columns {
            guard let value = lowered[column.name.lowercased()], value != .null else { return nil }
            conditions.append("\(column.name.sqlIdentifier) = ? COLLATE \(column.collation.sqlIdentifier)")
            arguments.append(value.databaseValue)
        }
        let idColumn = table.idColumn.sqlIdentifier
        arguments.append(id)
        return try DatabaseValue.fetchOne(db, sql: """
            SELECT \(idColumn) FROM \(table.name.sqlIdentifier) WHERE \(conditions.joined(separator: " AND ")) AND \(idColumn) IS NOT ? LIMIT 1
            """, arguments: StatementArguments(arguments))
    }

    /// The local columns of `table`.
    mutating func columns(of table: SyncTable, _ db: Database) throws -> [String] {
        if let cached = localColumns[table.name] { return cached }
        let columns = try db.columns(in: table.name).map(\.name)
        localColumns[table.name] = columns
        return columns
    }

    /// The new values of the row `id` of `table` (its values `values`, by local column name)
    /// that leave the clash in `index`: the renamer's (or the default's) with the first
    /// number from 2 that clashes with no local row. `nil` when the index has no column to
    /// rename (text, not the id, not in a foreign key) or no number up to 1,000 is free.
    mutating func rename(_ values: [String: SyncValue], id: DatabaseValue, in index: Index, table: SyncTable,
                         renamer: SyncUniqueRenamer?, _ db: Database) throws -> SyncUniqueClash.Rename? {
        let foreign = try foreignKeys(of: table, db)
        let lowered = Dictionary(values.map { ($0.key.lowercased(), $0) }, uniquingKeysWith: { first, _ in first })
        guard let column = index.columns.last(where: { column in
            let name = column.name.lowercased()
            guard name != table.idColumn.lowercased(), !foreign.contains(name), case .text? = lowered[name]?.value else { return false }
            return true
        }).flatMap({ lowered[$0.name.lowercased()]?.key }) else { return nil }
        for number in 2...1_000 {
            let clash = SyncUniqueClash(table: table.name, id: SyncValue(id), columns: values, column: column, number: number)
            guard let rename = renamer?(clash) ?? clash.defaultRename else { return nil }
            var candidate = values
            for (name, value) in rename.also.merging([rename.column: rename.value], uniquingKeysWith: { $1 }) {
                candidate[lowered[name.lowercased()]?.key ?? name] = value
            }
            if try self.clash(candidate, id: id, table: table, db) == nil { return rename }
        }
        return nil
    }

    /// Notes a rename, pushed and listed by ``finish(clientID:outbox:_:)``.
    mutating func note(_ renamed: Renamed) {
        self.renamed.append(renamed)
    }

    /// The lowercased names of the columns of `table` in a foreign key (never renamed: they
    /// name another row).
    private mutating func foreignKeys(of table: SyncTable, _ db: Database) throws -> Set<String> {
        if let cached = foreignKeyColumns[table.name] { return cached }
        let columns = Set(try Row.fetchAll(db, sql: "PRAGMA foreign_key_list(\(table.name.sqlIdentifier))")
            .compactMap { ($0["from"] as String?)?.lowercased() })
        foreignKeyColumns[table.name] = columns
        return columns
    }

    /// Queues each rename of a row still here as a local change of its columns (pushed like an
    /// edit, after the echo of the pulled rows was removed), and lists it as a conflict.
    func finish(clientID: String, outbox: String, _ db: Database) throws {
        guard !renamed.isEmpty else { return }
        var count = Int64.fromDatabaseValue(try SyncSchema.main.value("renames", db)) ?? 0
        let now = Int64(Date().timeIntervalSince1970 * 1000)
        for rename in renamed {
            let exists = try Bool.fetchOne(db, sql: """
                SELECT 1 FROM \(rename.table.name.sqlIdentifier) WHERE \(rename.table.idColumn.sqlIdentifier) = ?
                """, arguments: [rename.key.id]) ?? false
            guard exists else { continue }
            let cols = rename.columns.map { String(SyncSchema.columnSeparator) + $0 }.joined()
            try db.execute(sql: "INSERT INTO \(outbox) (tbl, rid, op, cols) VALUES (?, ?, 'U', ?)",
                           arguments: [rename.key.table, rename.key.id, cols])
            count += 1
            // Numbered below zero: the server's conflicts are numbered from 1.
            try db.execute(sql: """
                INSERT INTO \(SyncSchema.conflicts) (id, tbl, rid, col, kept, replaced, version, replaced_version, kept_by, at, kind)
                VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                """, arguments: [-count, rename.key.table, rename.key.id, rename.listed, rename.new.databaseValue,
                                 rename.old.databaseValue, rename.version, rename.version, clientID, now,
                                 SyncConflict.Kind.renamed.rawValue])
        }
        try SyncSchema.main.setValue("renames", count, db)
    }
}
