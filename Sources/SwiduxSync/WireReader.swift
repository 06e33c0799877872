import Foundation
import SwiduxSyncWire

/// Reads the server's answers — pull pages and push answers — straight from their bytes,
/// without `JSONDecoder` (decoding a page of 10,000 rows with it took seconds,
/// most of a first pull), on the shared ``SwiduxSyncWire/JSONScanner``. Keys it does not
/// know are skipped; anything else is a ``SwiduxSyncWire/JSONScanner/Failure`` naming the
/// byte offset.
enum WireReader {
    static func pullResponse(_ data: Data) throws -> PullResponse {
        try data.withUnsafeBytes { try pullResponse(JSONScanner($0)) }
    }

    static func pushAnswer(_ data: Data) throws -> PushAnswer {
        try data.withUnsafeBytes { try pushAnswer(JSONScanner($0)) }
    }

    private static func pullResponse(_ reader: JSONScanner) throws -> PullResponse {
        var reader = reader
        var page = PullResponse(rows: [], cursor: 0, hasMore: false)
        var sawCursor = false, sawRows = false, sawMore = false
        try reader.object { reader, key in
            switch key {
            case "rows":
                sawRows = true
                try reader.array { reader in page.rows.append(try reader.row()) }
            case "cursor": page.cursor = try reader.integer(); sawCursor = true
            case "hasMore": page.hasMore = try reader.bool(); sawMore = true
            case "end": page.end = try reader.isNull() ? nil : reader.integer()
            case "scope": page.scope = try reader.isNull() ? nil : reader.string()
            case "conflicts": page.conflicts = try reader.isNull() ? nil : reader.integer()
            default: try reader.skipValue()
            }
        }
        try reader.end()
        guard sawRows, sawCursor, sawMore else { throw reader.failure("a pull answer without rows, cursor or hasMore") }
        return page
    }

    private static func pushAnswer(_ reader: JSONScanner) throws -> PushAnswer {
        var reader = reader
        var answer = PushAnswer(PushResponse(lastMutationID: 0, results: []))
        var sawLast = false, sawResults = false
        try reader.object { reader, key in
            switch key {
            case "lastMutationID": answer.lastMutationID = try reader.integer(); sawLast = true
            case "results":
                sawResults = true
                try reader.array { reader in answer.results.append(try reader.result()) }
            case "acknowledged":
                if try !reader.isNull() {
                    var ids: [Int64] = []
                    try reader.array { ids.append(try $0.integer()) }
                    answer.acknowledged = ids
                }
            case "scope": answer.scope = try reader.isNull() ? nil : reader.string()
            case "conflicts": answer.conflicts = try reader.isNull() ? nil : reader.integer()
            default: try reader.skipValue()
            }
        }
        try reader.end()
        guard sawLast, sawResults else { throw reader.failure("a push answer without lastMutationID or results") }
        return answer
    }
}

/// The members of the answers, read in place.
private extension JSONScanner {
    mutating func row() throws -> SyncRow {
        var table: String?, id: SyncValue?, version: Int64?, deleted: Bool?
        var columns: [String: SyncValue]?
        try object { reader, key in
            switch key {
            case "table": table = try reader.string()
            case "id": id = try reader.value()
            case "version": version = try reader.integer()
            case "deleted": deleted = try reader.bool()
            case "columns":
                if try !reader.isNull() {
                    var values: [String: SyncValue] = [:]
                    try reader.object { reader, name in values[name] = try reader.value() }
                    columns = values
                }
            default: try reader.skipValue()
            }
        }
        guard let table, let id, let version, let deleted else { throw failure("a row without table, id, version or deleted") }
        return SyncRow(table: table, id: id, version: version, deleted: deleted, columns: columns)
    }

    mutating func result() throws -> PushAnswer.Result {
        var table: String?, id: SyncValue?, applied: Bool?, current: PushAnswer.Current?
        try object { reader, key in
            switch key {
            case "table": table = try reader.string()
            case "id": id = try reader.value()
            case "applied": applied = try reader.bool()
            case "current":
                var version: Int64?, deleted: Bool?
                var columns: [String: SyncValue]?
                try reader.object { reader, key in
                    switch key {
                    case "version": version = try reader.integer()
                    case "deleted": deleted = try reader.bool()
                    case "columns":
                        if try !reader.isNull() {
                            var values: [String: SyncValue] = [:]
                            try reader.object { reader, name in values[name] = try reader.value() }
                            columns = values
                        }
                    default: try reader.skipValue()
                    }
                }
                guard let version, let deleted else { throw reader.failure("a result's row without version or deleted") }
                current = PushAnswer.Current(version: version, deleted: deleted, columns: columns)
            default: try reader.skipValue()
            }
        }
        guard let table, let id, let applied, let current else { throw failure("a result without table, id, applied or current") }
        return PushAnswer.Result(table: table, id: id, applied: applied, current: current)
    }

    /// A ``SyncValue`` in its JSON form.
    mutating func value() throws -> SyncValue {
        switch peek() ?? 0 {
        case UInt8(ascii: "n"): try literal("null"); return .null
        case UInt8(ascii: "\""): return .text(try string())
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): return .integer(try integer())
        case UInt8(ascii: "{"):
            var result: SyncValue?
            try object { reader, key in
                switch key {
                case "real": result = .real(try reader.number())
                case "blob":
                    let text = try reader.string()
                    guard let data = Data(base64Encoded: text) else { throw reader.failure("a blob that is not base64") }
                    result = .blob(data)
                default: try reader.skipValue()
                }
            }
            guard let result else { throw failure("a sync value is null, an integer, a string, {\"real\": number} or {\"blob\": base64}") }
            return result
        default:
            throw failure("a sync value is null, an integer, a string, {\"real\": number} or {\"blob\": base64}")
        }
    }
}
