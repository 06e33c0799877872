import Logging
import NIOCore
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
    static func page(space: Int64, after cursor: Int64, limit: Int, bytes: Int, tables: [String]? = nil,
                     connection: PostgresConnection, logger: Logger) async throws -> PullPage {
        // Only some tables (a client filling a column its app just added).
        let only = tables ?? []
        let filtered = tables != nil
        // `keep`: the first row, and every row while the running size stays within `bytes`;
        // the rows after it come without their columns (only to tell that there are more).
        let rows = try await connection.query("""
            SELECT tbl, id::text, version, deleted, CASE WHEN keep THEN columns::text END, keep FROM (
                SELECT tbl, id, version, deleted, columns,
                       (row_number() OVER w) = 1 OR (sum(size) OVER w) <= \(Int64(bytes)) AS keep
                FROM (
                    SELECT tbl, id, version, deleted, columns,
                           octet_length(tbl) + octet_length(id::text) + coalesce(octet_length(columns::text), 0) + 64 AS size
                    FROM sync_rows WHERE space = \(space) AND version > \(cursor) AND (NOT \(filtered) OR tbl = ANY(\(only)))
                    ORDER BY version LIMIT \(limit + 1)
                ) base
                WINDOW w AS (ORDER BY version)
            ) sized ORDER BY version
            """, logger: logger)
        // The stored id and columns JSON go into the answer verbatim (no decoding, no encoding).
        // A small start: most pages a long poll reads hold a row or none, and the buffer grows.
        var json = WireWriter<ByteBuffer>(capacity: 1024)
        json.raw("{\"rows\":[")
        var count = 0, fetched = 0
        var last: Int64?
        // Cell by cell, the id and columns text copied as bytes (no `String`s, no tuple decoding:
        // its generic metadata lookups were a tenth of the server's time in a large pull).
        for try await row in rows {
            fetched += 1
            var cells = row.makeIterator()
            guard let table = cells.next(), let id = cells.next(), let version = cells.next(), let deleted = cells.next(),
                  let columns = cells.next(), let keep = cells.next() else {
                throw SyncServerError("a pull row has fewer than 6 columns")
            }
            guard try keep.decode(Bool.self), count < limit else { continue }
            let number = try version.decode(Int64.self)
            json.raw(count == 0 ? "{\"table\":" : ",{\"table\":")
            json.string(try table.decode(String.self))
            json.raw(",\"id\":")
            json.raw(try text(id))
            json.raw(",\"version\":")
            json.integer(number)
            json.raw(try deleted.decode(Bool.self) ? ",\"deleted\":true" : ",\"deleted\":false")
            if columns.bytes != nil {
                json.raw(",\"columns\":")
                json.raw(try text(columns))
            }
            json.raw("}")
            count += 1
            last = number
        }
        var end: Int64 = 0, conflicts: Int64 = 0
        for try await (version, conflict) in try await connection.query("""
            SELECT (SELECT coalesce(max(version), 0) FROM sync_rows WHERE space = \(space)),
                   (SELECT coalesce(max(id), 0) FROM sync_conflicts WHERE space = \(space))
            """, logger: logger).decode((Int64, Int64).self) { (end, conflicts) = (version, conflict) }
        return PullPage(rows: json.output, count: count, cursor: last ?? cursor, hasMore: fetched > count, end: max(end, last ?? 0),
                        conflicts: conflicts)
    }

    /// The bytes of a non-null `text` cell (UTF-8, as PostgreSQL sends text in either format).
    private static func text(_ cell: PostgresCell) throws -> ByteBuffer {
        guard cell.dataType == .text, let bytes = cell.bytes else {
            throw SyncServerError("pull column \(cell.columnName) is \(cell.dataType), \(cell.bytes == nil ? "null" : "not text")")
        }
        return bytes
    }
}

/// A pull page read by ``Pull/page(space:after:limit:bytes:connection:logger:)``: its rows
/// already written as the JSON of a ``SwiduxSyncWire/PullResponse``, which ``body(scope:)`` completes.
///
/// One page may answer many long polls at once (``SharedReads``): each answer's body is a
/// copy of the rows' bytes only, in a buffer of its own size (completing
/// one shared buffer in place copied its whole capacity, 1 MiB, once per poll answered).
struct PullPage: Sendable {
    /// `{"rows":[…` — the rows' JSON, written once.
    private let rows: ByteBuffer
    /// How many rows the page holds.
    let count: Int
    /// ``SwiduxSyncWire/PullResponse/cursor``.
    let cursor: Int64
    /// ``SwiduxSyncWire/PullResponse/hasMore``.
    let hasMore: Bool
    /// ``SwiduxSyncWire/PullResponse/end``.
    let end: Int64
    /// ``SwiduxSyncWire/PullResponse/conflicts``: the space's last conflict id.
    let conflicts: Int64

    fileprivate init(rows: ByteBuffer, count: Int, cursor: Int64, hasMore: Bool, end: Int64, conflicts: Int64) {
        self.rows = rows
        self.count = count
        self.cursor = cursor
        self.hasMore = hasMore
        self.end = end
        self.conflicts = conflicts
    }

    /// The ``SwiduxSyncWire/PullResponse`` JSON, with its scope: a new buffer of its size.
    func body(scope: String) -> ByteBuffer {
        var json = WireWriter<ByteBuffer>(capacity: rows.readableBytes + scope.utf8.count + 96)
        json.raw(rows)
        json.raw("],\"cursor\":")
        json.integer(cursor)
        json.raw(hasMore ? ",\"hasMore\":true" : ",\"hasMore\":false")
        json.raw(",\"end\":")
        json.integer(end)
        json.raw(",\"conflicts\":")
        json.integer(conflicts)
        json.raw(",\"scope\":")
        json.string(scope)
        json.raw("}")
        return json.output
    }
    }
