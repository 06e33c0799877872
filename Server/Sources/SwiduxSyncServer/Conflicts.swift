import Logging
import NIOCore
import PostgresNIO
import SwiduxSyncWire

/// Reads the conflicts of one client: the values a later push replaced without
/// having seen them, which this client wrote, after a conflict id — the JSON of a
/// ``SwiduxSyncWire/ConflictsResponse``, the stored values copied in as they are.
///
/// ```swift
/// let body = try await Conflicts.page(space: space, client: clientID, after: 0, limit: 100, connection: connection, logger: logger)
/// ```
enum Conflicts {
    static func page(space: Int64, client: String, after: Int64, limit: Int, connection: PostgresConnection,
                     logger: Logger) async throws -> ByteBuffer {
        let rows = try await connection.query("""
            SELECT id, tbl, row_id, col, kept, replaced, kept_version, replaced_version, kept_client,
                   (extract(epoch FROM at) * 1000)::bigint
            FROM sync_conflicts WHERE space = \(space) AND replaced_client = \(client) AND id > \(after)
            ORDER BY id LIMIT \(limit + 1)
            """, logger: logger)
        var json = WireWriter<ByteBuffer>(capacity: 1024)
        json.raw("{\"conflicts\":[")
        var count = 0, more = false
        var cursor = after
        for try await (id, table, rowID, column, kept, replaced, keptVersion, replacedVersion, keptBy, at)
            in rows.decode((Int64, String, String, String, String, String, Int64, Int64, String, Int64).self) {
            guard count < limit else {
                more = true
                continue
            }
            json.raw(count == 0 ? "{\"id\":" : ",{\"id\":")
            json.integer(id)
            json.raw(",\"table\":")
            json.string(table)
            json.raw(",\"row\":")
            json.rawJSON(rowID)
            json.raw(",\"column\":")
            json.string(column)
            json.raw(",\"kept\":")
            json.rawJSON(kept)
            json.raw(",\"replaced\":")
            json.rawJSON(replaced)
            json.raw(",\"version\":")
            json.integer(keptVersion)
            json.raw(",\"replacedVersion\":")
            json.integer(replacedVersion)
            json.raw(",\"keptBy\":")
            json.string(keptBy)
            json.raw(",\"at\":")
            json.integer(at)
            json.raw("}")
            count += 1
            cursor = id
        }
        json.raw("],\"cursor\":")
        json.integer(cursor)
        json.raw(more ? ",\"hasMore\":true}" : ",\"hasMore\":false}")
        return json.output
    }
}
