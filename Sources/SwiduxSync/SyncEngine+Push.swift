import Foundation
import GRDB
import SwiduxSyncWire

/// A mutation stored before it is sent: its exact bytes, resent as they are until the
/// server acknowledges it.
struct PendingMutation: Sendable, Equatable {
    let id: Int64
    /// The JSON of the ``SyncMutation``.
    let payload: Data
    /// The last outbox sequence it covers (for the rows it names).
    let throughSequence: Int64

    func decoded() throws -> SyncMutation { try JSONDecoder().decode(SyncMutation.self, from: payload) }
}

/// What acknowledging a push answer did.
struct Acknowledgement: Equatable {
    var changes = 0
    var refused = 0
    var mutations = 0
    /// A 409 conflict made the client take a new client id.
    var reidentified = false
    /// A scope change made the client sync as for the first time.
    var rebased = false
}

extension SyncEngine {
    /// What the outbox operations of one row since its last push make of it: an insert
    /// after the last delete → insert; a last delete → delete; otherwise update.
    static func fold(_ operations: [String]) -> SyncChange.Kind {
        let lastDelete = operations.lastIndex(of: "D")
        let insertAfter = operations[((lastDelete ?? -1) + 1)...].contains("I")
        if insertAfter { return .insert }
        if lastDelete == operations.count - 1 { return .delete }
        return lastDelete == nil ? .update : .insert
    }

    /// The mutations to send: those stored and not acknowledged yet, else new ones built
    /// from the outbox (folded per row, the row's current columns, cut under
    /// ``mutationBytes``) and stored — one local transaction. Empty when nothing is pending.
    func preparePush() throws -> [PendingMutation] {
        try writer.write { db in
            let stored = try self.storedPending(db)
            if !stored.isEmpty { return stored }
            let mark = try Int64.fetchOne(db, sql: "SELECT max(seq) FROM \(SyncSchema.outbox)") ?? 0
            guard mark > 0 else { return [] }
            var operations: [RowKey: [String]] = [:]
            var order: [RowKey] = []
            let entries = try Row.fetchCursor(db, sql: "SELECT tbl, rid, op FROM \(SyncSchema.outbox) WHERE seq <= ? ORDER BY seq", arguments: [mark])
            while let entry = try entries.next() {
                let key = RowKey(table: entry[0], id: entry[1])
                if operations[key] == nil { order.append(key) }
                operations[key, default: []].append(entry[2])
            }
            let encoder = JSONEncoder()
            encoder.outputFormatting = .sortedKeys
            var chunks: [[SyncChange]] = [[]]
            var bytes = 0
            for key in order {
                guard let table = self.tablesByName[key.table] else { continue }
                var kind = Self.fold(operations[key]!)
                let columns = try self.currentColumns(key, table: table, db)
                if columns == nil { kind = .delete } else if kind == .delete { kind = .insert }
                let change = SyncChange(
                    table: key.table, id: SyncValue(key.id), kind: kind,
                    columns: kind == .delete ? nil : columns, baseVersion: try self.baseVersion(key, db))
                let size = try encoder.encode(change).count + 1
                if size > self.maxChangeBytes {
                    // It can never be sent (the server refuses a body this large): set it
                    // aside and report it; the rest keeps syncing.
                    try self.setAside(key, bytes: size, through: mark, db)
                    continue
                }
                if bytes + size > self.mutationBytes, !chunks[chunks.count - 1].isEmpty {
                    chunks.append([])
                    bytes = 0
                }
                chunks[chunks.count - 1].append(change)
                bytes += size
            }
            var next = Int64.fromDatabaseValue(try SyncSchema.value("nextMutation", db)) ?? 1
            var built: [PendingMutation] = []
            for changes in chunks where !changes.isEmpty {
                let payload = try encoder.encode(SyncMutation(id: next, changes: changes))
                try db.execute(sql: "INSERT INTO \(SyncSchema.pending) (id, payload, through_seq) VALUES (?, ?, ?)",
                               arguments: [next, payload, mark])
                built.append(PendingMutation(id: next, payload: payload, throughSequence: mark))
                next += 1
            }
            if built.isEmpty {
                // Only rows of tables no longer synced or set aside: nothing to send for them.
                try db.execute(sql: "DELETE FROM \(SyncSchema.outbox) WHERE seq <= ?", arguments: [mark])
            }
            try SyncSchema.setValue("nextMutation", next, db)
            return built
        }
    }

    func storedPending(_ db: Database) throws -> [PendingMutation] {
        try Row.fetchAll(db, sql: "SELECT id, payload, through_seq FROM \(SyncSchema.pending) ORDER BY id").map {
            PendingMutation(id: $0[0], payload: $0[1], throughSequence: $0[2])
        }
    }

    /// The body of `POST /v1/push` for `mutations`, their stored bytes as they are.
    static func pushBody(clientID: String, scope: String? = nil, _ mutations: [PendingMutation]) throws -> Data {
        var body = Data(#"{"clientID":"#.utf8)
        body.append(try JSONEncoder().encode(clientID))
        if let scope {
            body.append(Data(#","scope":"#.utf8))
            body.append(try JSONEncoder().encode(scope))
        }
        body.append(Data(#","mutations":["#.utf8))
        for (index, mutation) in mutations.enumerated() {
            if index > 0 { body.append(UInt8(ascii: ",")) }
            body.append(mutation.payload)
        }
        body.append(Data("]}".utf8))
        return body
    }

    /// Groups the pending mutations into request bodies under the server's limit.
    static func requests(_ mutations: [PendingMutation], limit: Int = SyncProtocol.maxBodyBytes / 2) -> [[PendingMutation]] {
        var groups: [[PendingMutation]] = []
        var bytes = 0
        for mutation in mutations {
            if groups.isEmpty || (bytes + mutation.payload.count > limit && !groups[groups.count - 1].isEmpty) {
                groups.append([])
                bytes = 0
            }
            groups[groups.count - 1].append(mutation)
            bytes += mutation.payload.count + 1
        }
        return groups
    }

    /// Applies a push answer in one local transaction: exactly the sent mutations the answer
    /// acknowledges (``PushResponse/acknowledged``; from an older server without it, those up
    /// to `lastMutationID`) are deleted with the outbox entries of their rows up to their
    /// sequence, each result's version recorded, and a refused change takes the server's row
    /// (the tombstone: the row is deleted locally, not pushed back). A set-aside row that is
    /// acknowledged now is no longer set aside. From an older server only: a mutation
    /// acknowledged without results (applied by an earlier request whose answer was lost)
    /// resets the cursor, so that the next pull brings the server's state again.
    func acknowledge(_ response: PushResponse, sent: [PendingMutation]) throws -> Acknowledgement {
        try writer.write { db in
            try db.execute(sql: "PRAGMA defer_foreign_keys = ON")
            var result = Acknowledgement()
            let mark = try SyncSchema.lastOutboxSequence(db)
            var expected = 0
            let acknowledged = response.acknowledged.map(Set.init)
            for mutation in sent where acknowledged?.contains(mutation.id) ?? (mutation.id <= response.lastMutationID) {
                let decoded = try mutation.decoded()
                expected += decoded.changes.count
                result.changes += decoded.changes.count
                result.mutations += 1
                let delete = try db.cachedStatement(sql: "DELETE FROM \(SyncSchema.outbox) WHERE seq <= ? AND tbl = ? AND rid = ?")
                let unset = try db.cachedStatement(sql: "DELETE FROM \(SyncSchema.setAside) WHERE tbl = ? AND rid = ?")
                for change in decoded.changes {
                    try delete.execute(arguments: [mutation.throughSequence, change.table, change.id.databaseValue])
                    try unset.execute(arguments: [change.table, change.id.databaseValue])
                }
                try db.execute(sql: "DELETE FROM \(SyncSchema.pending) WHERE id = ?", arguments: [mutation.id])
            }
            if let scope = response.scope, try SyncSchema.value("scope", db).isNull {
                try SyncSchema.setValue("scope", scope, db)
            }
            var refusedKeys: [RowKey] = []
            var columns: [String: [String: String]] = [:]
            for change in response.results {
                let key = RowKey(table: change.table, id: change.id.databaseValue)
                if !change.applied, let table = self.tablesByName[change.table] {
                    result.refused += 1
                    try self.write(change.current, table: table, db, columns: &columns)
                    refusedKeys.append(key)
                }
                try self.recordVersion(key, change.current.version, db)
            }
            // Rows left without their parent by a refused change's deletion are deleted too
            // (and pushed); no echo: what the refused rows themselves wrote to the outbox.
            _ = try self.resolveForeignKeys(touched: [:], db)
            try self.removeEcho(of: refusedKeys, after: mark, db)
            if response.acknowledged == nil, response.results.count < expected {
                try SyncSchema.setValue("cursor", 0, db)
            }
            return result
        }
    }
}
