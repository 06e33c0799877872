import GRDB
import GRDBSQLite
import SwiduxSyncWire

/// Reads the current rows a push sends and writes their columns as wire JSON, with one
/// statement per table made once per transaction and each column's `"name":` encoded once
/// (building the SQL, copying a `Row` and encoding the names per row were a
/// large part of a first push's client time).
struct CurrentRows {
    private struct Reader {
        let statement: RawStatement
        /// The columns written (every one but the id), in the order of their names' UTF-8
        /// bytes, which is the order the server stores them in (it then copies them without
        /// sorting each row again): each column's place in `SELECT *`, its encoded `"name":`
        /// and its name.
        let members: [(index: Int32, name: [UInt8], column: String)]
        /// The UTF-8 bytes of the longest of their names.
        let longestName: Int
    }

    private var readers: [String: Reader] = [:]

    /// Writes `"columns":{…},` from the current row of `key` (every column but the id, or
    /// those of `only` it has: an update's changed columns); `false`, and nothing
    /// written, when the row does not exist.
    mutating func writeColumns(of key: RowKey, table: SyncTable, into writer: inout WireWriter<[UInt8]>, only: Set<String>? = nil,
                               _ db: Database) throws -> Bool {
        let reader = try self.reader(table, db)
        guard try reader.statement.step(binding: key.id) else { return false }
        defer { reader.statement.reset() }
        writer.raw("\"columns\":{")
        // The row is the statement's current one: its columns are read in place (a
        // `DatabaseValue`, and a `String` for each text, per column was a tenth of a first
        // push).
        let statement = reader.statement.handle
        var place = 0
        for member in reader.members {
            if let only, !only.contains(member.column) { continue }
            if place > 0 { writer.raw(",") }
            place += 1
            writer.raw(bytes: member.name)
            try Self.writeColumn(statement, member.index, into: &writer)
        }
        writer.raw("},")
        return true
    }

    /// Column `index` of the statement's current row, as ``WireWriter/value(_:)`` writes it.
    private static func writeColumn(_ statement: SQLiteStatement, _ index: Int32, into writer: inout WireWriter<[UInt8]>) throws {
        switch sqlite3_column_type(statement, index) {
        case SQLITE_NULL:
            writer.raw("null")
        case SQLITE_INTEGER:
            writer.integer(sqlite3_column_int64(statement, index))
        case SQLITE_TEXT:
            let count = Int(sqlite3_column_bytes(statement, index))
            guard let text = sqlite3_column_text(statement, index) else { return writer.raw("\"\"") }
            let utf8 = UnsafeBufferPointer(start: text, count: count)
            if utf8.allSatisfy({ $0 < 0x80 }) {
                writer.string(utf8: utf8)
            } else {
                // Not only ASCII: through `String`, which repairs invalid UTF-8 as `SyncValue` does.
                try writer.value(DatabaseValue(sqliteStatement: statement, index: index))
            }
        case SQLITE_BLOB:
            // In place, as for a text (a zero-length blob's pointer is nil, with a count of 0).
            let pointer = sqlite3_column_blob(statement, index)
            writer.blob(UnsafeRawBufferPointer(start: pointer, count: Int(sqlite3_column_bytes(statement, index))))
        default:
            try writer.value(DatabaseValue(sqliteStatement: statement, index: index))
        }
    }

    /// The UTF-8 bytes of the longest column name of `table` that a push sends.
    mutating func longestColumnName(of table: SyncTable, _ db: Database) throws -> Int {
        try reader(table, db).longestName
    }

    private mutating func reader(_ table: SyncTable, _ db: Database) throws -> Reader {
        if let reader = readers[table.name] { return reader }
        let sql = "SELECT * FROM \(table.name.sqlIdentifier) WHERE \(table.idColumn.sqlIdentifier) = ?"
        let statement = try RawStatement(db, sql: sql)
        let id = table.idColumn.lowercased()
        let members = statement.columnNames.enumerated()
            .filter { $0.element.lowercased() != id }
            .sorted { $0.element.utf8.lexicographicallyPrecedes($1.element.utf8) }
            .map { index, name -> (index: Int32, name: [UInt8], column: String) in
                var encoded = WireWriter()
                encoded.string(name)
                encoded.raw(":")
                return (Int32(index), encoded.output, name)
            }
        let longest = statement.columnNames.filter { $0.lowercased() != id }.map(\.utf8.count).max() ?? 0
        let reader = Reader(statement: statement, members: members, longestName: longest)
        readers[table.name] = reader
        return reader
    }
}
