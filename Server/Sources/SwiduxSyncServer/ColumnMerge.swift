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

    /// A member of a JSON object: its name, and its value's bytes (a range of the object's).
    private struct Member {
        let name: String
        let value: Range<Int>
    }

    /// Whether two names are the same, byte for byte (not as `String`s compare them).
    @inline(__always)
    private static func same(_ a: String, _ b: String) -> Bool {
        a.utf8.count == b.utf8.count && a.utf8.elementsEqual(b.utf8)
    }

    /// Merges `pushed` (an update's columns) into `stored` (the live row's columns, written at
    /// `rowVersion`, with its `meta`) for a push of `client` based on `baseVersion`.
    ///
    /// A row has a few columns: members are found by a linear scan, and the bytes are read in
    /// place (a push of 100,000 updates merges 100,000 rows).
    ///
    /// - Throws: when the stored JSON cannot be read (never for what the server stored).
    static func merge(stored: String, meta: String?, rowVersion: Int64, pushed: String, baseVersion: Int64?,
                      client: Int64) throws -> Result {
        var stored = stored, pushed = pushed
        return try stored.withUTF8 { storedBytes in
            try pushed.withUTF8 { pushedBytes in
                try merge(storedBytes, meta: meta, rowVersion: rowVersion, pushedBytes, baseVersion: baseVersion, client: client)
            }
        }
    }

    private static func merge(_ storedBytes: UnsafeBufferPointer<UInt8>, meta: String?, rowVersion: Int64,
                              _ pushedBytes: UnsafeBufferPointer<UInt8>, baseVersion: Int64?, client: Int64) throws -> Result {
        // Each member's value comes from the stored row (`fromPush` false) or the push.
        var members = try Self.members(storedBytes).map { (name: $0.name, value: $0.value, fromPush: false) }
        let updates = try Self.members(pushedBytes)
        var writers = try meta.map { try Self.writers($0, rowVersion: rowVersion) } ?? []
        let base = baseVersion ?? 0
        var conflicts: [Conflict] = []
        func bytes(_ range: Range<Int>, _ buffer: UnsafeBufferPointer<UInt8>) -> UnsafeBufferPointer<UInt8> {
            UnsafeBufferPointer(rebasing: buffer[range])
        }
        for update in updates {
            let writer = writers.firstIndex { same($0.name, update.name) }
            if let place = members.firstIndex(where: { same($0.name, update.name) }) {
                let old = bytes(members[place].value, members[place].fromPush ? pushedBytes : storedBytes)
                let new = bytes(update.value, pushedBytes)
                if let writer, writers[writer].version > base, writers[writer].client != client, !old.elementsEqual(new) {
                    conflicts.append(Conflict(column: update.name, kept: String(decoding: new, as: UTF8.self),
                                              replaced: String(decoding: old, as: UTF8.self),
                                              replacedClient: writers[writer].client, replacedVersion: writers[writer].version))
                }
                members[place] = (update.name, update.value, true)
            } else {
                members.append((update.name, update.value, true))
            }
            if let writer {
                writers[writer] = (update.name, 0, client)
            } else {
                writers.append((update.name, 0, client))
            }
        }
        var json: [UInt8] = [UInt8(ascii: "{")]
        json.reserveCapacity(storedBytes.count + pushedBytes.count)
        for (index, member) in members.enumerated() {
            if index > 0 { json.append(UInt8(ascii: ",")) }
            SyncJSON.appendString(member.name, to: &json)
            json.append(UInt8(ascii: ":"))
            json.append(contentsOf: bytes(member.value, member.fromPush ? pushedBytes : storedBytes))
        }
        json.append(UInt8(ascii: "}"))
        // The meta in the columns' order, then any column the row no longer has.
        var text: [UInt8] = [UInt8(ascii: "{")]
        text.reserveCapacity(16 * writers.count + 2)
        var first = true
        func append(_ writer: (name: String, version: Int64, client: Int64)) {
            if !first { text.append(UInt8(ascii: ",")) }
            first = false
            SyncJSON.appendString(writer.name, to: &text)
            text.append(contentsOf: ":[\(writer.version),\(writer.client)]".utf8)
        }
        var written = [Bool](repeating: false, count: writers.count)
        for member in members {
            if let index = writers.firstIndex(where: { same($0.name, member.name) }), !written[index] {
                append(writers[index])
                written[index] = true
            }
        }
        let rest = writers.indices.filter { !written[$0] }.sorted { writers[$0].name.utf8.lexicographicallyPrecedes(writers[$1].name.utf8) }
        for index in rest { append(writers[index]) }
        text.append(UInt8(ascii: "}"))
        return Result(columns: String(decoding: json, as: UTF8.self), meta: String(decoding: text, as: UTF8.self),
                      conflicts: conflicts)
    }

    /// The members of a JSON object, each value's bytes as they are.
    private static func members(_ bytes: UnsafeBufferPointer<UInt8>) throws -> [Member] {
        var scanner = JSONScanner(UnsafeRawBufferPointer(bytes))
        var members: [Member] = []
        try scanner.object { reader, name in
            _ = reader.peek()
            let start = reader.offset
            try reader.skipValue()
            members.append(Member(name: name, value: start..<reader.offset))
        }
        try scanner.end()
        return members
    }

    /// A `meta` text's writers, the version `0` read as `rowVersion`.
    private static func writers(_ meta: String, rowVersion: Int64) throws -> [(name: String, version: Int64, client: Int64)] {
        var meta = meta
        return try meta.withUTF8 { bytes in
            var scanner = JSONScanner(UnsafeRawBufferPointer(bytes))
            var writers: [(name: String, version: Int64, client: Int64)] = []
            try scanner.object { reader, name in
                var pair: [Int64] = []
                try reader.array { pair.append(try $0.integer()) }
                guard pair.count == 2 else { throw reader.failure("a meta entry of \(pair.count) numbers") }
                writers.append((name, pair[0] == 0 ? rowVersion : pair[0], pair[1]))
            }
            try scanner.end()
            return writers
        }
    }
}
