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
/// (another member, a duplicate, `1.0` for an integer, invalid UTF-8, a malformed document)
/// it answers `nil`, and the caller decodes with `JSONDecoder`, whose error names the cause:
/// what it accepts, and its messages, do not change. The JSON itself is read by the shared
/// ``SwiduxSyncWire/JSONScanner``.
///
/// ```swift
/// let request = try PushBody.decode(buffer) ?? ReceivedPush(JSONDecoder().decode(PushRequest.self, from: Data(buffer.readableBytesView)))
/// ```
enum PushBody {
    /// The request, or `nil` when the body is not in the subset read here.
    static func decode(_ buffer: ByteBuffer) -> ReceivedPush? {
        buffer.withUnsafeReadableBytes { bytes in
            var reader = JSONScanner(bytes)
            guard let request = try? reader.pushRequest(), (try? reader.end()) != nil else { return nil }
            return request
        }
    }
}

/// Not in the subset ``PushBody`` reads: decode with `JSONDecoder` instead.
private struct Unsupported: Error {}

/// The messages of a push, read in place; anything outside the subset throws.
private extension JSONScanner {
    mutating func pushRequest() throws -> ReceivedPush {
        var clientID: String?, mutations: [ReceivedPush.Mutation]?, scope: String??, resultColumns: Bool??
        try object { reader, key in
            switch key {
            case "clientID" where clientID == nil: clientID = try reader.string()
            case "mutations" where mutations == nil:
                var read: [ReceivedPush.Mutation] = []
                try reader.array { read.append(try $0.mutation()) }
                mutations = read
            case "scope" where scope == nil: scope = .some(try reader.isNull() ? nil : reader.string())
            case "resultColumns" where resultColumns == nil: resultColumns = .some(try reader.isNull() ? nil : reader.bool())
            default: throw Unsupported()
            }
        }
        guard let clientID, let mutations else { throw Unsupported() }
        return ReceivedPush(clientID: clientID, mutations: mutations, scope: scope ?? nil, resultColumns: (resultColumns ?? nil) ?? true)
    }

    mutating func mutation() throws -> ReceivedPush.Mutation {
        var id: Int64?, changes: [ReceivedPush.Change]?
        try object { reader, key in
            switch key {
            case "id" where id == nil: id = try reader.integer()
            case "changes" where changes == nil:
                var read: [ReceivedPush.Change] = []
                try reader.array { read.append(try $0.change()) }
                changes = read
            default: throw Unsupported()
            }
        }
        guard let id, let changes else { throw Unsupported() }
        return ReceivedPush.Mutation(id: id, changes: changes)
    }

    mutating func change() throws -> ReceivedPush.Change {
        var table: String?, id: SyncValue?, kind: SyncChange.Kind?
        var columns: String??, baseVersion: Int64??
        try object { reader, key in
            switch key {
            case "table" where table == nil: table = try reader.string()
            case "id" where id == nil:
                guard try !reader.isNull() else { throw Unsupported() }
                id = try reader.syncValue()
            case "kind" where kind == nil:
                guard let known = SyncChange.Kind(rawValue: try reader.string()) else { throw Unsupported() }
                kind = known
            case "columns" where columns == nil: columns = .some(try reader.isNull() ? nil : reader.columns())
            case "baseVersion" where baseVersion == nil: baseVersion = .some(try reader.isNull() ? nil : reader.integer())
            default: throw Unsupported()
            }
        }
        guard let table, let id, let kind else { throw Unsupported() }
        return ReceivedPush.Change(table: table, id: id, kind: kind, columnsJSON: columns ?? nil, baseVersion: baseVersion ?? nil)
    }

    /// A row's columns as the JSON the server stores: what ``WireJSON`` writes for the
    /// dictionary they decode to (members sorted by their names as `String`s compare, each
    /// value in its wire form), written from the body's bytes. Two names equal as `String`s
    /// (a duplicate, or canonically equivalent spellings) are left to `JSONDecoder`.
    mutating func columns() throws -> String {
        var json: [UInt8] = [UInt8(ascii: "{")]
        var members: [(name: String, value: Range<Int>)] = []
        var sorted = true
        try object { reader, name in
            if let last = members.last, !(last.name < name) { sorted = false }
            if !members.isEmpty { json.append(UInt8(ascii: ",")) }
            SyncJSON.appendString(name, to: &json)
            json.append(UInt8(ascii: ":"))
            let start = json.count
            try reader.syncValue(appendingTo: &json)
            members.append((name, start..<json.count))
        }
        if sorted {
            json.append(UInt8(ascii: "}"))
            return String(decoding: json, as: UTF8.self)
        }
        let order = members.indices.sorted { members[$0].name < members[$1].name }
        var ordered: [UInt8] = [UInt8(ascii: "{")]
        ordered.reserveCapacity(json.count + 1)
        for (place, index) in order.enumerated() {
            if place > 0 {
                guard members[order[place - 1]].name != members[index].name else { throw Unsupported() }
                ordered.append(UInt8(ascii: ","))
            }
            SyncJSON.appendString(members[index].name, to: &ordered)
            ordered.append(UInt8(ascii: ":"))
            ordered.append(contentsOf: json[members[index].value])
        }
        ordered.append(UInt8(ascii: "}"))
        return String(decoding: ordered, as: UTF8.self)
    }
}
