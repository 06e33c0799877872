import Foundation
import NIOCore
import SwiduxSyncWire

/// A hand-written reader of `POST /v1/push` bodies (issue 31 item 3): `JSONDecoder` was
/// two thirds of the server's time in a large push (a thrown error per text value, in
/// ``SwiduxSyncWire/SyncValue``'s decoding, and a coding path per value).
///
/// It reads the JSON every client writes — the members ``SwiduxSyncWire/PushRequest``,
/// ``SwiduxSyncWire/SyncMutation`` and ``SwiduxSyncWire/SyncChange`` declare, each once,
/// integers as plain digits — into the same values `JSONDecoder` gives. For anything else
/// (another member, a duplicate, `1.0` for an integer, invalid UTF-8, a malformed document)
/// it answers `nil`, and the caller decodes with `JSONDecoder`, whose error names the cause:
/// what it accepts, and its messages, do not change. The JSON itself is read by the shared
/// ``SwiduxSyncWire/JSONScanner``.
///
/// ```swift
/// let request = PushBody.decode(buffer) ?? (try JSONDecoder().decode(PushRequest.self, from: Data(buffer.readableBytesView)))
/// ```
enum PushBody {
    /// The request, or `nil` when the body is not in the subset read here.
    static func decode(_ buffer: ByteBuffer) -> PushRequest? {
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
    mutating func pushRequest() throws -> PushRequest {
        var clientID: String?, mutations: [SyncMutation]?, scope: String??
        try object { reader, key in
            switch key {
            case "clientID" where clientID == nil: clientID = try reader.string()
            case "mutations" where mutations == nil:
                var read: [SyncMutation] = []
                try reader.array { read.append(try $0.mutation()) }
                mutations = read
            case "scope" where scope == nil: scope = .some(try reader.isNull() ? nil : reader.string())
            default: throw Unsupported()
            }
        }
        guard let clientID, let mutations else { throw Unsupported() }
        return PushRequest(clientID: clientID, mutations: mutations, scope: scope ?? nil)
    }

    mutating func mutation() throws -> SyncMutation {
        var id: Int64?, changes: [SyncChange]?
        try object { reader, key in
            switch key {
            case "id" where id == nil: id = try reader.integer()
            case "changes" where changes == nil:
                var read: [SyncChange] = []
                try reader.array { read.append(try $0.change()) }
                changes = read
            default: throw Unsupported()
            }
        }
        guard let id, let changes else { throw Unsupported() }
        return SyncMutation(id: id, changes: changes)
    }

    mutating func change() throws -> SyncChange {
        var table: String?, id: SyncValue?, kind: SyncChange.Kind?
        var columns: [String: SyncValue]??, baseVersion: Int64??
        try object { reader, key in
            switch key {
            case "table" where table == nil: table = try reader.string()
            case "id" where id == nil:
                guard try !reader.isNull() else { throw Unsupported() }
                id = try reader.value()
            case "kind" where kind == nil:
                guard let known = SyncChange.Kind(rawValue: try reader.string()) else { throw Unsupported() }
                kind = known
            case "columns" where columns == nil: columns = .some(try reader.isNull() ? nil : reader.columns())
            case "baseVersion" where baseVersion == nil: baseVersion = .some(try reader.isNull() ? nil : reader.integer())
            default: throw Unsupported()
            }
        }
        guard let table, let id, let kind else { throw Unsupported() }
        return SyncChange(table: table, id: id, kind: kind, columns: columns ?? nil, baseVersion: baseVersion ?? nil)
    }

    mutating func columns() throws -> [String: SyncValue] {
        var columns: [String: SyncValue] = [:]
        try object { reader, name in
            guard columns.updateValue(try reader.value(), forKey: name) == nil else { throw Unsupported() }
        }
        return columns
    }

    /// A ``SwiduxSyncWire/SyncValue``: `null`, an integer, a string, `{"real":n}` or `{"blob":"base64"}`.
    mutating func value() throws -> SyncValue {
        switch peek() {
        case nil: throw Unsupported()
        case UInt8(ascii: "n"):
            try literal("null")
            return .null
        case UInt8(ascii: "\""): return .text(try string())
        case UInt8(ascii: "{"):
            var value: SyncValue?
            try object { reader, key in
                guard value == nil else { throw Unsupported() }
                switch key {
                case "real": value = .real(try reader.number())
                case "blob":
                    guard let data = Data(base64Encoded: try reader.string()) else { throw Unsupported() }
                    value = .blob(data)
                default: throw Unsupported()
                }
            }
            guard let value else { throw Unsupported() }
            return value
        default: return .integer(try integer())
        }
    }
}
