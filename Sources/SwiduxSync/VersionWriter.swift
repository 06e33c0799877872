import GRDB

/// Records the server versions of rows, many rows per statement (one statement
/// per row was about a tenth of a first pull's apply and of a push's acknowledgement).
///
/// Made once per transaction; ``flush(_:)`` before anything reads the versions back (a
/// parked row tried again, a foreign key resolved) and before the transaction ends.
struct VersionWriter {
    private static let rowsPerStatement = 128
    private let insert: MultiRowSQL
    private var values: [DatabaseValue] = []

    /// A writer of the versions of `schema`'s space.
    init(_ schema: SyncSchema) {
        insert = MultiRowSQL("INSERT OR REPLACE INTO \(schema.version) (tbl, rid, version) VALUES ", row: "(?, ?, ?)",
                             full: Self.rowsPerStatement)
    }

    mutating func record(_ key: RowKey, _ version: Int64, _ db: Database) throws {
        values.append(key.table.databaseValue)
        values.append(key.id)
        values.append(version.databaseValue)
        if values.count == Self.rowsPerStatement * 3 { try flush(db) }
    }

    /// Writes what was recorded.
    mutating func flush(_ db: Database) throws {
        guard !values.isEmpty else { return }
        try insert.execute(rows: values.count / 3, values, db)
        values.removeAll(keepingCapacity: true)
    }
}
