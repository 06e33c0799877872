import Foundation
import SwiduxSyncWire

/// Merges a pushed update into the stored row by column: the update's columns
/// are written over the stored ones, every other column stays (including those the pushing
/// app's schema lacks), and a column the update replaces without having seen its stored
/// value is a conflict.
///
/// Per row, `sync_rows.meta` records which write last set each column an *update* wrote
/// since the row's last insert, as JSON text: `{"title":[812,3],"done":[0,7]}` — the version
/// and the client (`sync_clients.ref`) of that write, the version `0` standing for the row's
/// own version (the latest write's, not known before the upsert gives it). A column not in
/// it was written by the row's insert (or by a server older than this): it never conflicts.
///
/// A pushed column is a conflict when the stored row has it with another value, written by
/// another client at a version after the push's base version: the push still wins (server
/// order), and the replaced value is recorded for the client that wrote it.
///
/// Names are compared byte for byte (their UTF-8), as SQLite and PostgreSQL compare them.
///
/// ```swift
/// let merged = try ColumnMerge.merge(stored: "{\"a\":1,\"b\":2}", meta: nil, rowVersion: 5,
///                                    pushed: "{\"b\":3}", baseVersion: 5, client: 1)
/// // merged.columns == "{\"a\":1,\"b\":3}", merged.meta == "{\"b\":[0,1]}"
/// ```
enum ColumnMerge {
    /// One value replaced without having been seen.
    struct Conflict: Equatable {
        /// The column's name.
        let column: String
        /// The pushed value's wire JSON (kept).
        let kept: String
        /// The stored value's wire JSON (replaced).
        let replaced: String
        /// The client (`sync_clients.ref`) that wrote the replaced value, and at which version.
        let replacedClient: Int64
        let replacedVersion: Int64
    }

    struct Result: Equatable {
        /// The merged columns' wire JSON.
        let columns: String
        /// The row's new `meta`.
        let meta: String
        let conflicts: [Conflict]
    }

    /// A member of a JSON object: its name's UTF-8 and its value's bytes.
    private struct Member {
        let name: [UInt8]
        let value: ArraySlice<UInt8>
    }

    /// Merges `pushed` (an update's columns) into `stored` (the live row's columns, written at
    /// `rowVersion`, with its `meta`) for a push of `client` based on `baseVersion`.
    ///
    /// - Throws: when the stored JSON cannot be read (never for what the server stored).
    static func merge(stored: String, meta: String?, rowVersion: Int64, pushed: String, baseVersion: Int64?,
                      client: Int64) throws -> Result {
        let storedBytes = Array(stored.utf8), pushedBytes = Array(pushed.utf8)
        var members = try Self.members(storedBytes)
        let updates = try Self.members(pushedBytes)
        var writers = try meta.map { try Self.writers(Array($0.utf8), rowVersion: rowVersion) } ?? [:]
        var places: [[UInt8]: Int] = [:]
        places.reserveCapacity(members.count)
        for (index, member) in members.enumerated() { places[member.name] = index }
        let base = baseVersion ?? 0
        var conflicts: [Conflict] = []
        for update in updates {
            if let place = places[update.name] {
                let old = members[place].value
                if old != update.value, let writer = writers[update.name], writer.version > base, writer.client != client {
                    conflicts.append(Conflict(column: String(decoding: update.name, as: UTF8.self),
                                              kept: String(decoding: update.value, as: UTF8.self),
                                              replaced: String(decoding: old, as: UTF8.self),
                                              replacedClient: writer.client, replacedVersion: writer.version))
                }
                members[place] = update
            } else {
                places[update.name] = members.count
                members.append(update)
            }
            writers[update.name] = (0, client)
        }
        var json = WireWriter()
        json.output.reserveCapacity(storedBytes.count + pushedBytes.count)
        json.raw("{")
        for (index, member) in members.enumerated() {
            if index > 0 { json.raw(",") }
            json.string(utf8: member.name)
            json.raw(":")
            json.output.append(contentsOf: member.value)
        }
        json.raw("}")
        // The meta in the columns' order, then any column the row no longer has.
        var text = WireWriter()
        text.raw("{")
        var first = true
        func append(_ name: [UInt8], _ writer: (version: Int64, client: Int64)) {
            if !first { text.raw(",") }
            first = false
            text.string(utf8: name)
            text.raw(":[")
            text.integer(writer.version)
            text.raw(",")
            text.integer(writer.client)
            text.raw("]")
        }
        for member in members {
            if let writer = writers.removeValue(forKey: member.name) { append(member.name, writer) }
        }
        for (name, writer) in writers.sorted(by: { $0.key.lexicographicallyPrecedes($1.key) }) { append(name, writer) }
        text.raw("}")
        return Result(columns: String(decoding: json.output, as: UTF8.self), meta: String(decoding: text.output, as: UTF8.self),
                      conflicts: conflicts)
    }

    /// The members of a JSON object, each value's bytes as they are.
    private static func members(_ bytes: [UInt8]) throws -> [Member] {
        try bytes.withUnsafeBytes { buffer in
            var scanner = WireReader(buffer)
            var members: [Member] = []
            try scanner.object { reader, name in
                _ = reader.peek()
                let start = reader.offset
                try reader.skipValue()
                members.append(Member(name: Array(name.utf8), value: bytes[start..<reader.offset]))
            }
            try scanner.end()
            return members
        }
    }

    /// A `meta` text's writers, the version `0` read as `rowVersion`.
    private static func writers(_ bytes: [UInt8], rowVersion: Int64) throws -> [[UInt8]: (version: Int64, client: Int64)] {
        try bytes.withUnsafeBytes { buffer in
            var scanner = WireReader(buffer)
            var writers: [[UInt8]: (version: Int64, client: Int64)] = [:]
            try scanner.object { reader, name in
                var pair: [Int64] = []
                try reader.array { pair.append(try $0.integer()) }
                guard pair.count == 2 else { throw reader.failure("a meta entry of \(pair.count) numbers") }
                writers[Array(name.utf8)] = (pair[0] == 0 ? rowVersion : pair[0], pair[1])
            }
            try scanner.end()
            return writers
        }
    }
}
