import GRDB
import GRDBSQLite

/// A SQLite statement of its own on a GRDB connection, bound and stepped with SQLite's
/// functions: no `StatementArguments`, cursor or `Row` per execution (reading a
/// pushed row by its id through GRDB made them for every row, about a tenth of a first
/// push's client time). Used inside one GRDB access (its connection's queue) and released
/// before it ends.
///
///     let statement = try RawStatement(db, sql: "SELECT * FROM item WHERE id = ?")
///     if try statement.step(binding: id) { … sqlite3_column_*(statement.handle, 0) … }
final class RawStatement {
    /// The prepared statement: its current row is read with `sqlite3_column_*`.
    let handle: SQLiteStatement
    private let sql: String
    private let connection: SQLiteConnection

    init(_ db: Database, sql: String) throws {
        guard let connection = db.sqliteConnection else {
            throw DatabaseError(resultCode: .SQLITE_MISUSE, message: "the database connection is closed", sql: sql)
        }
        var handle: SQLiteStatement?
        let code = sqlite3_prepare_v2(connection, sql, -1, &handle, nil)
        guard code == SQLITE_OK, let handle else {
            let message = String(cString: sqlite3_errmsg(connection))
            sqlite3_finalize(handle)
            throw DatabaseError(resultCode: ResultCode(rawValue: code), message: message, sql: sql)
        }
        self.handle = handle
        self.sql = sql
        self.connection = connection
    }

    deinit { sqlite3_finalize(handle) }

    /// The result columns' names.
    var columnNames: [String] {
        (0..<sqlite3_column_count(handle)).map { String(cString: sqlite3_column_name(handle, $0)) }
    }

    /// Runs the statement again from its start with `value` as its only parameter, up to its
    /// first row: `true` when there is one (the current row), `false` when there is none.
    func step(binding value: DatabaseValue) throws -> Bool {
        sqlite3_reset(handle)
        // Bound as GRDB binds it.
        let bound = value.bind(to: handle, at: 1)
        guard bound == SQLITE_OK else { throw failure(bound) }
        switch sqlite3_step(handle) {
        case SQLITE_ROW: return true
        case SQLITE_DONE: return false
        case let other: throw failure(other)
        }
    }

    /// Ends the current execution (releases what it reads).
    func reset() { sqlite3_reset(handle) }

    private func failure(_ code: Int32) -> DatabaseError {
        DatabaseError(resultCode: ResultCode(rawValue: code), message: String(cString: sqlite3_errmsg(connection)), sql: sql)
    }
}
