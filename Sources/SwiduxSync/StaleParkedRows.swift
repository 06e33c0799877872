import GRDB

/// Drops the parked rows (pulled before their parent) that a newer version of their id makes
/// stale: a pulled row, or this client's acknowledged push of the id. Left parked, a stale row
/// would come back with its old content once its parent arrived.
///
/// Made once per transaction; when nothing is parked (the usual case) dropping costs nothing.
struct StaleParkedRows {
    private let drop: Statement?

    init(_ schema: SyncSchema, _ db: Database) throws {
        let anyParked = try SyncSchema.hasRows(schema.parked, db)
        drop = anyParked
            ? try db.cachedStatement(sql: "DELETE FROM \(schema.parked) WHERE tbl = ? AND rid = ? AND version <= ?")
            : nil
    }

    /// Whether any row was parked when the transaction began.
    var anyParked: Bool { drop != nil }

    /// Drops the parked rows of `key` up to `version`.
    func drop(_ key: RowKey, upTo version: Int64) throws {
        try drop?.execute(arguments: [key.table, key.id, version])
    }
}
