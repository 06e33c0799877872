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

    /// A member of a JSON object: its name and where its value's bytes are in the object's
    /// text. Names are compared by their UTF-8 (``Bytewise``); a row's handful of
    /// columns is searched linearly (hashing names, and an array per name, were most of a
    /// merge's time), a wide row through a dictionary.
    private struct Member {
        let name: String
        let value: Range<Int>
    }

    /// The writer of a column, as `meta` records it.
    private struct Writer {
        let name: String
        var version: Int64
        var client: Int64
    }

    /// Up to this many columns, a linear search; above, a dictionary.
    private static let linearColumns = 32

    /// Merges `pushed` (an update's columns) into `stored` (the live row's columns, written at
    /// `rowVersion`, with its `meta`) for a push of `client` based on `baseVersion`.
    ///
    /// - Throws: when the stored JSON cannot be read (never for what the server stored).
    static func merge(stored: String, meta: String?, rowVersion: Int64, pushed: String, baseVersion: Int64?,
                      client: Int64) throws -> Result {
        var stored = stored, pushed = pushed
        return try stored.withUTF8 { storedBytes in
            try pushed.withUTF8 { pushedBytes in
                try merge(stored: UnsafeRawBufferPointer(storedBytes), meta: meta, rowVersion: rowVersion,
                          pushed: UnsafeRawBufferPointer(pushedBytes), baseVersion: baseVersion, client: client)
            }
        }
    }

    private static func merge(stored storedBytes: UnsafeRawBufferPointer, meta: String?, rowVersion: Int64,
                              pushed pushedBytes: UnsafeRawBufferPointer, baseVersion: Int64?, client: Int64) throws -> Result {
        // Each member's value is either the stored text's (`fromPush` false) or the pushed one's.
        var members = try Self.members(storedBytes).map { (member: $0, fromPush: false) }
        let updates = try Self.members(pushedBytes)
        var writers = try meta.map { try Self.writers($0, rowVersion: rowVersion) } ?? []
        // Only for a wide row: the members' and the writers' places by name.
        var places: [Name: Int]?
        var writerPlaces: [Name: Int]?
        if members.count + updates.count > linearColumns || writers.count > linearColumns {
            var memberIndex: [Name: Int] = [:], writerIndex: [Name: Int] = [:]
            for (index, member) in members.enumerated() { memberIndex[Name(member.member.name)] = index }
            for (index, writer) in writers.enumerated() { writerIndex[Name(writer.name)] = index }
            places = memberIndex
            writerPlaces = writerIndex
        }
        func place(of name: String) -> Int? {
            if let places { return places[Name(name)] }
            return members.lastIndex { Bytewise.equal($0.member.name, name) }
        }
        func writerPlace(of name: String) -> Int? {
            if let writerPlaces { return writerPlaces[Name(name)] }
            return writers.lastIndex { Bytewise.equal($0.name, name) }
        }
        let base = baseVersion ?? 0
        var conflicts: [Conflict] = []
        for update in updates {
            let writer = writerPlace(of: update.name)
            if let place = place(of: update.name) {
                let old = members[place]
                let oldValue = old.fromPush ? pushedBytes[old.member.value] : storedBytes[old.member.value]
                if let writer, writers[writer].version > base, writers[writer].client != client,
                   !oldValue.elementsEqual(pushedBytes[update.value]) {
                    conflicts.append(Conflict(column: update.name,
                                              kept: String(decoding: pushedBytes[update.value], as: UTF8.self),
                                              replaced: String(decoding: oldValue, as: UTF8.self),
                                              replacedClient: writers[writer].client, replacedVersion: writers[writer].version))
                }
                members[place] = (update, true)
            } else {
                places?[Name(update.name)] = members.count
                members.append((update, true))
            }
            if let writer {
                writers[writer].version = 0
                writers[writer].client = client
            } else {
                writerPlaces?[Name(update.name)] = writers.count
                writers.append(Writer(name: update.name, version: 0, client: client))
            }
        }
        var json = WireWriter()
        json.output.reserveCapacity(storedBytes.count + pushedBytes.count)
        json.raw("{")
        for (index, member) in members.enumerated() {
            if index > 0 { json.raw(",") }
            json.string(member.member.name)
            json.raw(":")
            json.output.append(contentsOf: member.fromPush ? pushedBytes[member.member.value] : storedBytes[member.member.value])
        }
        json.raw("}")
        // The meta in the columns' order, then any column the row no longer has (by name).
        var text = WireWriter()
        text.output.reserveCapacity(writers.count * 24 + 2)
        text.raw("{")
        var first = true
        func append(_ writer: Writer) {
            if !first { text.raw(",") }
            first = false
            text.string(writer.name)
            text.raw(":[")
            text.integer(writer.version)
            text.raw(",")
            text.integer(writer.client)
            text.raw("]")
        }
        var written = [Bool](repeating: false, count: writers.count)
        for member in members {
            if let writer = writerPlace(of: member.member.name), !written[writer] {
                written[writer] = true
                append(writers[writer])
            }
        }
        if written.contains(false) {
            for (writer, _) in zip(writers, written).filter({ !$0.1 }).sorted(by: { Bytewise.less($0.0.name, $1.0.name) }) {
                append(writer)
            }
        }
        text.raw("}")
        return Result(columns: String(decoding: json.output, as: UTF8.self), meta: String(decoding: text.output, as: UTF8.self),
                      conflicts: conflicts)
    }

    /// A name as a dictionary key, hashed and compared by its UTF-8 (``Bytewise``).
    private struct Name: Hashable {
        let text: String
        init(_ text: String) { self.text = text }
        static func == (a: Name, b: Name) -> Bool { Bytewise.equal(a.text, b.text) }
        func hash(into hasher: inout Hasher) { Bytewise.hash(text, into: &hasher) }
    }

    /// The members of a JSON object, each value's place in `bytes`.
    private static func members(_ bytes: UnsafeRawBufferPointer) throws -> [Member] {
        var scanner = WireReader(bytes)
        var members: [Member] = []
        members.reserveCapacity(8)
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
    private static func writers(_ meta: String, rowVersion: Int64) throws -> [Writer] {
        var meta = meta
        return try meta.withUTF8 { bytes in
            var scanner = WireReader(UnsafeRawBufferPointer(bytes))
            var writers: [Writer] = []
            writers.reserveCapacity(4)
            try scanner.object { reader, name in
                var pair: (Int64, Int64) = (0, 0)
                var count = 0
                try reader.array {
                    let value = try $0.integer()
                    if count == 0 { pair.0 = value } else { pair.1 = value }
                    count += 1
                }
                guard count == 2 else { throw reader.failure("a meta entry of \(count) numbers") }
                // The server writes each name once (were one twice, the searches take the last).
                writers.append(Writer(name: name, version: pair.0 == 0 ? rowVersion : pair.0, client: pair.1))
            }
            try scanner.end()
            return writers
        }
    }
}
