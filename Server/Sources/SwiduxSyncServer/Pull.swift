import Logging
import PostgresNIO
import SwiduxSyncWire

/// Reads one page of a space's rows after a cursor, in version order, with the space's
/// high-water mark (its highest version: a client whose cursor is past it pulls from 0 again).
///
/// ```swift
/// let page = try await Pull.page(space: space, after: cursor, limit: 500, connection: connection, logger: logger)
/// ```
enum Pull {
    static func page(space: Int64, after cursor: Int64, limit: Int, connection: PostgresConnection, logger: Logger) async throws -> PullResponse {
        let rows = try await connection.query("""
            SELECT tbl, id::text, version, deleted, columns::text FROM sync_rows
            WHERE space = \(space) AND version > \(cursor) ORDER BY version LIMIT \(limit + 1)
            """, logger: logger)
        let json = WireJSON()
        var page: [SyncRow] = []
        for try await (table, id, version, deleted, columns) in rows.decode((String, String, Int64, Bool, String?).self) {
            page.append(SyncRow(table: table, id: try json.decode(SyncValue.self, id), version: version, deleted: deleted,
                                columns: try columns.map { try json.decode([String: SyncValue].self, $0) }))
        }
        let hasMore = page.count > limit
        if hasMore { page.removeLast() }
        var end: Int64 = 0
        for try await value in try await connection.query(
            "SELECT coalesce(max(version), 0) FROM sync_rows WHERE space = \(space)", logger: logger
        ).decode(Int64.self) { end = value }
        return PullResponse(rows: page, cursor: page.last?.version ?? cursor, hasMore: hasMore, end: max(end, page.last?.version ?? 0))
    }
}
