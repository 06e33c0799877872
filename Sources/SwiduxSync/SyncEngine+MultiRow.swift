import GRDB

extension SyncEngine {
    /// Executes `prefix` followed by `rows` times `row`, comma-separated, with `values`: a
    /// statement cached when it has `full` rows (the usual size), made once otherwise.
    static func executeMultiRow(_ prefix: String, row: String, suffix: String = "", rows: Int, full: Int,
                                _ values: [DatabaseValue], _ db: Database) throws {
        let sql = prefix + repeatElement(row, count: rows).joined(separator: ", ") + suffix
        let statement = rows == full ? try db.cachedStatement(sql: sql) : try db.makeStatement(sql: sql)
        try statement.execute(arguments: StatementArguments(databaseValues: values))
    }
}
