import Crypto
import NIOCore
import SwiduxSyncWire

/// The SHA-256 of a mutation's canonical JSON, which tells a replay from a conflict: sorted
/// keys at every level, from the changes' stored id and columns JSON (whose members are
/// sorted too), so the same content always gives the same hash, whatever its spelling in
/// the request.
///
/// Hashed here, in pieces of 64 KiB (the canonical text was built as a `String`
/// and sent to PostgreSQL to hash, about a megabyte more per mutation, and its building was
/// about a tenth of the server's CPU in a large push). The bytes are those PostgreSQL hashed
/// before (`sha256(convert_to(text, 'UTF8'))`): hashes stored by an earlier server still match.
///
/// ```swift
/// let hash = MutationHash.of(id: mutation.id, changes: changes)   // 32 bytes
/// ```
enum MutationHash {
    static func of(id: Int64, changes: [Push.Prepared]) -> ByteBuffer {
        var hasher = SHA256()
        var text: [UInt8] = []
        text.reserveCapacity(pieceBytes + 1024)
        func flushIfFull() {
            guard text.count >= pieceBytes else { return }
            hasher.update(data: text)
            text.removeAll(keepingCapacity: true)
        }
        append("{\"changes\":[", to: &text)
        for (index, change) in changes.enumerated() {
            append(index == 0 ? "{" : ",{", to: &text)
            if let base = change.baseVersion {
                append("\"baseVersion\":", to: &text)
                text.append(contentsOf: String(base).utf8)
                append(",", to: &text)
            }
            if change.kind != .delete {
                append("\"columns\":", to: &text)
                text.append(contentsOf: change.columnsJSON.utf8)
                append(",", to: &text)
            }
            append("\"id\":", to: &text)
            text.append(contentsOf: change.idJSON.utf8)
            append(",\"kind\":\"", to: &text)
            text.append(contentsOf: change.kind.rawValue.utf8)
            append("\",\"table\":", to: &text)
            // The text moved into a writer and back: no copy, no buffer of its own.
            var table = WireWriter(into: text)
            text = []
            table.string(change.table)
            text = table.output
            append("}", to: &text)
            flushIfFull()
        }
        append("],\"id\":", to: &text)
        text.append(contentsOf: String(id).utf8)
        append("}", to: &text)
        hasher.update(data: text)
        return ByteBuffer(bytes: hasher.finalize())
    }

    /// Hashed when the text reaches it.
    private static let pieceBytes = 64 * 1024

    private static func append(_ literal: StaticString, to text: inout [UInt8]) {
        literal.withUTF8Buffer { text.append(contentsOf: $0) }
    }
}
