import Logging
import PostgresNIO
import SwiduxSyncWire

/// Reads one page of a space's rows after a cursor, in version order, with the space's
/// high-water mark (its highest version: a client whose cursor is past it pulls from 0 again).
///
/// A page holds at most `limit` rows and about `bytes` bytes (each row's table, id and
/// columns as stored, plus 64), but always at least one row: a row alone may be larger,
/// up to what a push can carry. PostgreSQL sums the sizes, so rows past the bound are
/// never sent to the server.
///
/// ```swift
/// let page = try await Pull.page(space: space, after: cursor, limit: 500, bytes: 4 << 20, connection: connection, logger: logger)
/// ```
enum Pull {
    static func page(space: Int64, after cursor: Int64, limit: Int, bytes: Int, connection: PostgresConnection,
                     logger: Logger) async throws -> PullResponse {
        // `keep`: the first row, and every row while the running size stays within `bytes`;
        // the rows after it come without their columns (only to tell that there are more).
        let rows = try await connection.query("""
            SELECT tbl, id::text, version, deleted, CASE WHEN keep THEN columns::text END, keep FROM (
                SELECT tbl, id, version, deleted, columns,
                       (row_number() OVER w) = 1 OR (sum(size) OVER w) <= \(Int64(bytes)) AS keep
                FROM (
                    SELECT tbl, id, version, deleted, columns,
                           octet_length(tbl) + octet_length(id::text) + coalesce(octet_length(columns::text), 0) + 64 AS size
                    FROM sync_rows WHERE space = \(space) AND version > \(cursor) ORDER BY version LIMIT \(limit + 1)
                ) base
                WINDOW w AS (ORDER BY version)
            ) sized ORDER BY version
            """, logger: logger)
        let json = WireJSON()
        var page: [SyncRow] = []
        var fetched = 0
        for try await (table, id, version, deleted, columns, keep) in rows.decode((String, String, Int64, Bool, String?, Bool).self) {
            fetched += 1
            guard keep, page.count < limit else { continue }
            page.append(SyncRow(table: table, id: try json.decode(SyncValue.self, id), version: version, deleted: deleted,
                                columns: try columns.map { try json.decode([String: SyncValue].self, $0) }))
        }
        let hasMore = fetched > page.count
        var end: Int64 = 0
        for try await value in try await connection.query(
            "SELECT coalesce(max(version), 0) FROM sync_rows WHERE space = \(space)", logger: logger
        ).decode(Int64.self) { end = value }
        return PullResponse(rows: page, cursor: page.last?.version ?? cursor, hasMore: hasMore, end: max(end, page.last?.version ?? 0))
    }
}
