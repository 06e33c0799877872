import Foundation
import NIOCore
import SwiduxSyncWire

/// A hand-written reader of `POST /v1/push` bodies: `JSONDecoder` was
/// two thirds of the server's time in a large push (a thrown error per text value, in
/// ``SwiduxSyncWire/SyncValue``'s decoding, and a coding path per value).
///
/// It reads the JSON every client writes — the members ``SwiduxSyncWire/PushRequest``,
/// ``SwiduxSyncWire/SyncMutation`` and ``SwiduxSyncWire/SyncChange`` declare, each once,
/// integers as plain digits — into the same values `JSONDecoder` gives, a row's columns as
/// the JSON the server stores (``ReceivedPush``): each value copied when it already is in
/// its stored form, its members sorted by name. For anything else
/// (another member, a duplicate, `1.0` for an integer, invalid UTF-8, a malformed document,
/// a name or id over the limits) it answers `nil`, and the caller reads the body with
/// ``PushBodyLayout`` (which refuses a member named twice) and `JSONDecoder`, whose error
/// names the cause. The JSON itself is read by the shared ``SwiduxSyncWire/WireReader``.
///
/// ```swift
/// let request = try PushBody.read(buffer) { try JSONDecoder().decode(PushRequest.self, from: Data($0.readableBytesView)) }
/// ```
enum PushBody {
    /// A column name longer than ``SwiduxSyncWire/SyncProtocol/maxKeyBytes``.
    struct LongName: Error {
        let name: String
    }

    /// The request in `buffer`: read by ``decode(_:)``, else by `decode` (`JSONDecoder`,
    /// whose errors name the cause) after ``PushBodyLayout``'s check, which refuses a member
    /// named twice and keeps the columns' names byte for byte.
    ///
    /// - Throws: a ``RequestFailure`` (400 for a member named twice, 413 for a name over
    ///   ``SwiduxSyncWire/SyncProtocol/maxKeyBytes``), or what `decode` throws.
    static func read(_ buffer: ByteBuffer, decoding decode: (ByteBuffer) throws -> PushRequest) throws -> ReceivedPush {
        if let read = Self.decode(buffer) { return read }
        let layout = try PushBodyLayout(buffer)
        return try layout.received(decode(buffer))
    }

    /// The request, or `nil` when the body is not in the subset read here.
    static func decode(_ buffer: ByteBuffer) -> ReceivedPush? {
        buffer.withUnsafeReadableBytes { bytes in
            var reader = WireReader(bytes)
            guard let request = try? reader.pushRequest(), (try? reader.end()) != nil else { return nil }
            return request
        }
    }
}

/// Not in the subset ``PushBody`` reads: decode with `JSONDecoder` instead.
private struct Unsupported: Error {}

/// The messages of a push, read in place, strictly (``SwiduxSyncWire/WireReader/message(_:_:)``:
/// the extension member skipped, a member named twice or not declared refused); anything
/// outside the subset throws, and the body is read again by the checked fallback.
extension WireReader {
    mutating func pushRequest() throws -> ReceivedPush {
        var clientID: String?, mutations: [ReceivedPush.Mutation]?, scope: String?, resultColumns: Bool?
        try message("a push request") { reader, key in
            switch key {
            case "clientID": clientID = try reader.string()
            case "mutations":
                var read: [ReceivedPush.Mutation] = []
                try reader.array { read.append(try $0.mutation()) }
                mutations = read
            case "scope": scope = try reader.isNull() ? nil : reader.string()
            case "resultColumns": resultColumns = try reader.isNull() ? nil : reader.bool()
            default: return false
            }
            return true
        }
        guard let clientID, let mutations else { throw Unsupported() }
        return ReceivedPush(clientID: clientID, mutations: mutations, scope: scope, resultColumns: resultColumns ?? true)
    }

    mutating func mutation() throws -> ReceivedPush.Mutation {
        var id: Int64?, changes: [ReceivedPush.Change]?
        try message("a mutation") { reader, key in
            switch key {
            case "id": id = try reader.integer()
            case "changes":
                var read: [ReceivedPush.Change] = []
                try reader.array { read.append(try $0.change()) }
                changes = read
            default: return false
            }
            return true
        }
        guard let id, let changes else { throw Unsupported() }
        return ReceivedPush.Mutation(id: id, changes: changes)
    }

    mutating func change() throws -> ReceivedPush.Change {
        var table: String?, id: SyncValue?, kind: SyncChange.Kind?
        var columns: String?, baseVersion: Int64?
        try message("a change") { reader, key in
            switch key {
            case "table": table = try reader.string()
            case "id":
                guard try !reader.isNull() else { throw Unsupported() }
                id = try reader.syncValue()
            case "kind":
                guard let known = SyncChange.Kind(rawValue: try reader.string()) else { throw Unsupported() }
                kind = known
            case "columns": columns = try reader.isNull() ? nil : reader.columns()
            case "baseVersion": baseVersion = try reader.isNull() ? nil : reader.integer()
            default: return false
            }
            return true
        }
        guard let table, let id, let kind else { throw Unsupported() }
        return ReceivedPush.Change(table: table, id: id, kind: kind, columnsJSON: columns, baseVersion: baseVersion)
    }

    /// A row's columns as the JSON the server stores: what ``WireJSON`` writes for the
    /// dictionary they decode to (members sorted by their names' UTF-8 bytes, each value in
    /// its wire form), written from the body's bytes. Names are compared byte for byte, as
    /// the databases compare them: two canonically equivalent spellings are two columns; the
    /// same bytes twice (a duplicate) are left to the checked reader, which refuses them.
    ///
    /// - Throws: ``PushBody/LongName`` for a name longer than
    ///   ``SwiduxSyncWire/SyncProtocol/maxKeyBytes``; anything else outside the subset.
    mutating func columns() throws -> String {
        var json = WireWriter()
        json.raw("{")
        var members: [(name: String, value: Range<Int>)] = []
        var sorted = true
        try object { reader, name in
            if name.utf8.count > SyncProtocol.maxKeyBytes { throw PushBody.LongName(name: name) }
            if let last = members.last, !Bytewise.less(last.name, name) { sorted = false }
            if !members.isEmpty { json.raw(",") }
            json.string(name)
            json.raw(":")
            let start = json.output.count
            try reader.syncValue(appendingTo: &json.output)
            members.append((name, start..<json.output.count))
        }
        if sorted {
            json.raw("}")
            return String(decoding: json.output, as: UTF8.self)
        }
        let order = members.indices.sorted { Bytewise.less(members[$0].name, members[$1].name) }
        var ordered = WireWriter()
        ordered.output.reserveCapacity(json.output.count + 1)
        ordered.raw("{")
        for (place, index) in order.enumerated() {
            if place > 0 {
                guard !Bytewise.equal(members[order[place - 1]].name, members[index].name) else { throw Unsupported() }
                ordered.raw(",")
            }
            ordered.string(members[index].name)
            ordered.raw(":")
            ordered.output.append(contentsOf: json.output[members[index].value])
        }
        ordered.raw("}")
        return String(decoding: ordered.output, as: UTF8.self)
    }
}
