import Logging
import NIOCore
import PostgresNIO
import SwiduxSyncWire

/// Writes a large mutation's rows with `COPY sync_rows FROM STDIN`, when
/// none of them exists yet (a first push): PostgreSQL inserts them in batches, with no
/// `ON CONFLICT` check and no arrays to build and unnest (about half the time of the upsert).
///
/// The rows' versions are taken from `sync_version` first, one `nextval` a row in one query
/// answering one array,
/// and written with the rows, in input order (ascending): nothing is read back. (Reading the
/// copied rows back in version order, to learn the versions the column's default gave them,
/// was a seventh of a 10,000-row push.) A row that exists after all (an insert of a known
/// id) makes the copy fail with a unique violation: ``insert(_:space:connection:logger:)``
/// throws ``KnownRow``, the transaction is rolled back, and the caller applies the request
/// again with upserts (the versions taken are skipped: a sequence has gaps, which pulls do
/// not mind). That is rare — a client pushing rows the space already holds under inserts —
/// and saves every large push a savepoint's two round trips. The caller holds the space's
/// advisory lock.
///
/// ```swift
/// let versions = try await RowCopy.insert(written, space: space, connection: connection, logger: logger)
/// ```
enum RowCopy {
    /// Below this many rows, one upsert statement is cheaper than a copy's four round trips.
    static let minimumRows = 64

    /// One of the copied rows exists in the space: the transaction failed, and is rolled back.
    struct KnownRow: Error {}

    /// The versions given to `rows`, in their order.
    ///
    /// - Throws: ``KnownRow`` when one of them already exists in the space (the transaction
    ///   has failed).
    static func insert(_ rows: [Push.Prepared], space: Int64, connection: PostgresConnection,
                       logger: Logger) async throws -> [Int64] {
        // One row of one array (a row per version was a tenth of the server's CPU
        // in a first push, in PostgresNIO's handling of rows).
        var versions: [Int64] = []
        for try await row in try await connection.query(
            "SELECT array_agg(nextval('sync_version')) FROM generate_series(1, \(rows.count))", logger: logger
        ) {
            versions = try row.decode([Int64].self)
        }
        guard versions.count == rows.count else {
            throw SyncServerError("sync_version gave \(versions.count) versions for \(rows.count) rows")
        }
        // In input order, as the upsert gives them (each nextval is above the last one anyway).
        versions.sort()
        do {
            try await connection.copyFrom(table: "sync_rows", columns: ["space", "tbl", "rid", "id", "version", "deleted", "columns"],
                                          logger: logger) { writer in
                let prefix = "\(space)\t"
                // A version's digits written in place by the wire writer, into the buffer sent.
                var copy = WireWriter<ByteBuffer>(capacity: chunkBytes + 4096)
                for (row, version) in zip(rows, versions) {
                    copy.output.writeString(prefix)
                    appendEscaped(row.table, to: &copy.output)
                    copy.output.writeInteger(UInt8(ascii: "\t"))
                    appendEscaped(row.rid, to: &copy.output)
                    copy.output.writeInteger(UInt8(ascii: "\t"))
                    appendEscaped(row.idJSON, to: &copy.output)
                    copy.output.writeInteger(UInt8(ascii: "\t"))
                    copy.integer(version)
                    if row.kind == .delete {
                        copy.output.writeString("\tt\t\\N\n")
                    } else {
                        copy.output.writeString("\tf\t")
                        appendEscaped(row.columnsJSON, to: &copy.output)
                        copy.output.writeInteger(UInt8(ascii: "\n"))
                    }
                    if copy.output.readableBytes >= chunkBytes {
                        try await writer.write(copy.output)
                        copy.output.clear()
                    }
                }
                if copy.output.readableBytes > 0 { try await writer.write(copy.output) }
            }
        } catch let error as PSQLError where error.serverInfo?[.sqlState] == uniqueViolation {
            throw KnownRow()
        }
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
