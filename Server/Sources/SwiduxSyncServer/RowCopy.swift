import Logging
import NIOCore
import PostgresNIO

/// Writes a large mutation's rows with `COPY sync_rows FROM STDIN` (issue 31 item 3), when
/// none of them exists yet (a first push): PostgreSQL inserts them in batches, with no
/// `ON CONFLICT` check and no arrays to build and unnest (about half the time of the upsert).
///
/// Each row's version comes from the column's default, `nextval('sync_version')` (migration 4),
/// evaluated in input order; the rows are then read back in version order and checked against
/// the input, so a version is never given to the wrong row. The caller holds the space's
/// advisory lock: the space's rows past its highest version before the copy are this copy's.
/// A row that exists after all (an insert of a known id) makes the copy fail with a unique
/// violation: it is rolled back to a savepoint, and ``insert(_:space:connection:logger:)``
/// answers `nil` for the caller to upsert instead.
///
/// ```swift
/// if let versions = try await RowCopy.insert(written, space: space, connection: connection, logger: logger) { … }
/// ```
enum RowCopy {
    /// Below this many rows, one upsert statement is cheaper than a copy's five round trips.
    static let minimumRows = 64

    /// The versions given to `rows`, in their order; `nil` (and nothing written) when one of
    /// them already exists in the space.
    static func insert(_ rows: [Push.Prepared], space: Int64, connection: PostgresConnection,
                       logger: Logger) async throws -> [Int64]? {
        try await connection.query("SAVEPOINT swidux_copy", logger: logger)
        var floor: Int64 = 0
        for try await value in try await connection.query(
            "SELECT coalesce(max(version), 0) FROM sync_rows WHERE space = \(space)", logger: logger
        ).decode(Int64.self) { floor = value }
        do {
            try await connection.copyFrom(table: "sync_rows", columns: ["space", "tbl", "rid", "id", "deleted", "columns"],
                                          logger: logger) { writer in
                let prefix = "\(space)\t"
                var buffer = ByteBufferAllocator().buffer(capacity: chunkBytes + 4096)
                for row in rows {
                    buffer.writeString(prefix)
                    appendEscaped(row.table, to: &buffer)
                    buffer.writeInteger(UInt8(ascii: "\t"))
                    appendEscaped(row.rid, to: &buffer)
                    buffer.writeInteger(UInt8(ascii: "\t"))
                    appendEscaped(row.idJSON, to: &buffer)
                    if row.kind == .delete {
                        buffer.writeString("\tt\t\\N\n")
                    } else {
                        buffer.writeString("\tf\t")
                        appendEscaped(row.columnsJSON, to: &buffer)
                        buffer.writeInteger(UInt8(ascii: "\n"))
                    }
                    if buffer.readableBytes >= chunkBytes {
                        try await writer.write(buffer)
                        buffer.clear()
                    }
                }
                if buffer.readableBytes > 0 { try await writer.write(buffer) }
            }
        } catch let error as PSQLError where error.serverInfo?[.sqlState] == uniqueViolation {
            try await connection.query("ROLLBACK TO SAVEPOINT swidux_copy", logger: logger)
            try await connection.query("RELEASE SAVEPOINT swidux_copy", logger: logger)
            return nil
        }
        var versions: [Int64] = []
        versions.reserveCapacity(rows.count)
        let written = try await connection.query("""
            SELECT tbl, rid, version FROM sync_rows WHERE space = \(space) AND version > \(floor) ORDER BY version
            """, logger: logger)
        // Cell by cell, the table and rid compared as bytes (no tuple decoding, no `String`s).
        for try await row in written {
            let index = versions.count
            var cells = row.makeIterator()
            guard let table = cells.next()?.bytes, let rid = cells.next()?.bytes, let version = cells.next(),
                  index < rows.count, table.readableBytesView.elementsEqual(rows[index].table.utf8),
                  rid.readableBytesView.elementsEqual(rows[index].rid.utf8) else {
                throw SyncServerError("the copy of \(rows.count) rows read back another row at place \(index + 1)")
            }
            versions.append(try version.decode(Int64.self))
        }
        guard versions.count == rows.count else {
            throw SyncServerError("the copy of \(rows.count) rows read back \(versions.count)")
        }
        try await connection.query("RELEASE SAVEPOINT swidux_copy", logger: logger)
        return versions
    }

    /// PostgreSQL's SQLSTATE for a duplicate key.
    private static let uniqueViolation = "23505"

    /// How many bytes are sent to PostgreSQL at a time.
    private static let chunkBytes = 256 << 10

    /// `text` as a field of COPY's text format: backslash, tab, newline and carriage return
    /// escaped (a NUL cannot occur: ids and the client id are checked, JSON escapes it).
    static func appendEscaped(_ text: String, to buffer: inout ByteBuffer) {
        var text = text
        text.withUTF8 { bytes in
            guard bytes.contains(where: { $0 == UInt8(ascii: "\\") || $0 == 0x09 || $0 == 0x0A || $0 == 0x0D }) else {
                buffer.writeBytes(bytes)
                return
            }
            for byte in bytes {
                switch byte {
                case UInt8(ascii: "\\"): buffer.writeStaticString("\\\\")
                case 0x09: buffer.writeStaticString("\\t")
                case 0x0A: buffer.writeStaticString("\\n")
                case 0x0D: buffer.writeStaticString("\\r")
                default: buffer.writeInteger(byte)
                }
            }
        }
    }
}
