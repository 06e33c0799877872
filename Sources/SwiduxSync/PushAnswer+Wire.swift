import Foundation
import SwiduxSyncWire

extension PushAnswer {
    /// Reads a push answer straight from its bytes with ``SwiduxSyncWire/WireReader``, as
    /// strictly as a pull page: the members a ``PushResponse`` declares, each once, and the
    /// extension member; anything else is a ``SwiduxSyncWire/WireReader/Failure``.
    static func read(_ data: Data) throws -> PushAnswer {
        try data.withUnsafeBytes { bytes in
            var reader = WireReader(bytes)
            let answer = try reader.pushAnswer()
            try reader.end()
            return answer
        }
    }
}

private extension WireReader {
    mutating func pushAnswer() throws -> PushAnswer {
        var answer = PushAnswer(PushResponse(lastMutationID: 0, results: []))
        var sawLast = false, sawResults = false
        try message("a push answer") { reader, key in
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
            default: return false
            }
            return true
        }
        guard sawLast, sawResults else { throw failure("a push answer without lastMutationID or results") }
        return answer
    }

    mutating func result() throws -> PushAnswer.Result {
        var table: String?, id: SyncValue?, applied: Bool?, current: PushAnswer.Current?, reason: String?
        // Read as ``WireReader/message(_:_:)`` reads a message, but for its extension member,
        // which carries a rule's reason (``SyncResult/reason``); what else it holds is skipped.
        var seen: [String] = []
        try object { reader, key in
            if seen.contains(key) { throw reader.failure("the member \"\(key)\" appears twice in a push result") }
            seen.append(key)
            switch key {
            case SyncProtocol.extensionMember:
                if try reader.isNull() { return }
                try reader.object { reader, member in
                    if member == "reason", try !reader.isNull() { reason = try reader.string() } else { try reader.skipValue() }
                }
            case "table": table = try reader.string()
            case "id": id = try reader.syncValue()
            case "applied": applied = try reader.bool()
            case "current":
                let row = try reader.syncRow()
                current = PushAnswer.Current(version: row.version, deleted: row.deleted, columns: row.columns)
            default:
                throw reader.failure("a push result has no member \"\(key)\" (a newer peer's additions go under \"\(SyncProtocol.extensionMember)\")")
            }
        }
        guard let table, let id, let applied, let current else { throw failure("a result without table, id, applied or current") }
        return PushAnswer.Result(table: table, id: id, applied: applied, current: current, reason: reason)
    }
}
