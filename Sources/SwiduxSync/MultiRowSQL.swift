import GRDB

/// A statement of many rows: `prefix`, then `row` repeated, comma-separated, then `suffix`.
/// Its full form (``full`` rows, the usual size) is built once (joining the SQL
/// for each statement was 3 % of a first push's client).
struct MultiRowSQL {
    let prefix: String, row: String, suffix: String
    /// Rows of the full form.
    let full: Int
    /// The full form's SQL.
    let fullSQL: String

    init(_ prefix: String, row: String, suffix: String = "", full: Int) {
        self.prefix = prefix
        self.row = row
        self.suffix = suffix
        self.full = full
        fullSQL = Self.sql(prefix, row: row, suffix: suffix, rows: full)
    }

    private static func sql(_ prefix: String, row: String, suffix: String, rows: Int) -> String {
        prefix + repeatElement(row, count: rows).joined(separator: ", ") + suffix
    }

    /// Executes the statement of `rows` rows with `values`: cached when full, made once otherwise.
    func execute(rows: Int, _ values: [DatabaseValue], _ db: Database) throws {
        let statement = rows == full ? try db.cachedStatement(sql: fullSQL)
            : try db.makeStatement(sql: Self.sql(prefix, row: row, suffix: suffix, rows: rows))
        try statement.execute(arguments: StatementArguments(databaseValues: values))
    }
}
