import Logging
import PostgresNIO
import SwiduxSyncWire

/// Applies a ``PushRequest`` to one space, in one PostgreSQL transaction.
///
/// Under a per-space advisory lock (so that versions in a space are assigned in commit
/// order and a pull never passes a version committed later), it skips the mutations the
/// client already pushed (ids up to its `last_mutation`), applies the others in order —
/// insert: upsert the live row; update: the same, unless the row is a tombstone newer than
/// the change's base version (delete wins over a stale update: refused, the tombstone is
/// the result); delete: a tombstone (no new version when it already is one) — gives every
/// written row a new version from `sync_version`, records the last mutation, and notifies
/// `swidux_push`. A table the space did not declare fails the whole request.
///
/// ```swift
/// let response = try await Push.apply(request, space: space, client: client, logger: logger)
/// ```
enum Push {
    /// The LISTEN/NOTIFY channel; the payload is the space's id.
    static let channel = "swidux_push"
    /// The first key of the per-space advisory locks (the second is the space's id).
    static let spaceLockClass: Int32 = 0x5357_4458

    /// One change, validated and encoded for the database.
    private struct Prepared {
        let change: SyncChange
        let rid: String
        let idJSON: String
        let columnsJSON: String
    }

    static func apply(_ request: PushRequest, space: Int64, client: PostgresClient, logger: Logger) async throws -> PushResponse {
        let mutations = try validate(request)
        let tables = Array(Set(mutations.flatMap { $0.changes.map(\.change.table) })).sorted()
        return try await client.transaction(logger: logger) { connection in
            try await connection.query(
                "SELECT pg_advisory_xact_lock(\(spaceLockClass), \(Int32(truncatingIfNeeded: space)))", logger: logger)
            if !tables.isEmpty {
                var known = Set<String>()
                for try await table in try await connection.query(
                    "SELECT tbl FROM sync_tables WHERE space = \(space) AND tbl = ANY(\(tables))", logger: logger
                ).decode(String.self) { known.insert(table) }
                if let unknown = tables.first(where: { !known.contains($0) }) {
                    throw RequestFailure.badRequest("unknown table \"\(unknown)\" (declare it with PUT /\(SyncProtocol.tablesPath))")
                }
            }
            try await connection.query("""
                INSERT INTO sync_clients (space, client_id, last_mutation) VALUES (\(space), \(request.clientID), 0)
                ON CONFLICT (space, client_id) DO NOTHING
                """, logger: logger)
            var last: Int64 = 0
            for try await value in try await connection.query(
                "SELECT last_mutation FROM sync_clients WHERE space = \(space) AND client_id = \(request.clientID) FOR UPDATE",
                logger: logger
            ).decode(Int64.self) { last = value }

            var results: [SyncResult] = []
            var wrote = false
            for mutation in mutations where mutation.id > last {
                let (mutationResults, mutationWrote) = try await applyMutation(mutation.changes, space: space, connection: connection, logger: logger)
                results += mutationResults
                wrote = wrote || mutationWrote
                last = mutation.id
            }
            try await connection.query(
                "UPDATE sync_clients SET last_mutation = \(last) WHERE space = \(space) AND client_id = \(request.clientID)",
                logger: logger)
            if wrote {
                try await connection.query("SELECT pg_notify(\(channel), \(String(space)))", logger: logger)
            }
            return PushResponse(lastMutationID: last, results: results)
        }
    }

    /// Checks the request's shape (400 with the reason) and encodes every change.
    private static func validate(_ request: PushRequest) throws -> [(id: Int64, changes: [Prepared])] {
        guard !request.clientID.isEmpty, request.clientID.utf8.count <= 200 else {
            throw RequestFailure.badRequest("invalid clientID: it must have 1 to 200 bytes")
        }
        let json = WireJSON()
        var previous: Int64 = 0
        return try request.mutations.map { mutation in
            guard mutation.id > previous else {
                throw RequestFailure.badRequest("mutation ids must be positive and increasing (\(mutation.id) after \(previous))")
            }
            previous = mutation.id
            var seen = Set<[String]>()
            let changes = try mutation.changes.map { change in
                guard SyncProtocol.isValidTableName(change.table) else {
                    throw RequestFailure.badRequest("invalid table name \"\(change.table)\"")
                }
                let rid = change.id.key
                guard seen.insert([change.table, rid]).inserted else {
                    throw RequestFailure.badRequest("mutation \(mutation.id) changes \(change.table) \(rid) twice")
                }
                var columnsJSON = ""
                if change.kind != .delete {
                    guard let columns = change.columns else {
                        throw RequestFailure.badRequest("the \(change.kind.rawValue) of \(change.table) \(rid) in mutation \(mutation.id) has no columns")
                    }
                    columnsJSON = try encode(columns, json, what: "columns of \(change.table) \(rid)")
                }
                return Prepared(change: change, rid: rid, idJSON: try encode(change.id, json, what: "id of \(change.table)"),
                                columnsJSON: columnsJSON)
            }
            return (mutation.id, changes)
        }
    }

    private static func encode<T: Encodable>(_ value: T, _ json: WireJSON, what: String) throws -> String {
        do { return try json.text(value) } catch {
            throw RequestFailure.badRequest("cannot store the \(what): \(error)")
        }
    }

    /// Applies one mutation's changes with two bulk statements: the current state of the
    /// rows updates and deletes touch, then one upsert of every row written.
    private static func applyMutation(_ changes: [Prepared], space: Int64, connection: PostgresConnection,
                                      logger: Logger) async throws -> ([SyncResult], Bool) {
        struct Existing { let version: Int64; let deleted: Bool }
        var existing: [[String]: Existing] = [:]
        let looked = changes.filter { $0.change.kind != .insert }
        if !looked.isEmpty {
            let rows = try await connection.query("""
                SELECT r.tbl, r.rid, r.version, r.deleted FROM sync_rows r
                JOIN unnest(\(looked.map(\.change.table)), \(looked.map(\.rid))) AS u(tbl, rid) ON r.tbl = u.tbl AND r.rid = u.rid
                WHERE r.space = \(space)
                """, logger: logger)
            for try await (table, rid, version, deleted) in rows.decode((String, String, Int64, Bool).self) {
                existing[[table, rid]] = Existing(version: version, deleted: deleted)
            }
        }

        enum Outcome { case write, refused(Int64), unchanged(Int64) }
        let outcomes: [Outcome] = changes.map { prepared in
            let change = prepared.change
            let current = existing[[change.table, prepared.rid]]
            switch change.kind {
            case .insert: return .write
            case .update:
                if let current, current.deleted, current.version > (change.baseVersion ?? 0) { return .refused(current.version) }
                return .write
            case .delete:
                if let current, current.deleted { return .unchanged(current.version) }
                return .write
            }
        }

        var versions: [[String]: Int64] = [:]
        let written = zip(changes, outcomes).compactMap { prepared, outcome -> Prepared? in
            if case .write = outcome { return prepared } else { return nil }
        }
        if !written.isEmpty {
            let rows = try await connection.query("""
                INSERT INTO sync_rows (space, tbl, rid, id, version, deleted, columns)
                SELECT \(space), u.tbl, u.rid, u.id::json, nextval('sync_version'), u.deleted, NULLIF(u.columns, '')::json
                FROM unnest(\(written.map(\.change.table)), \(written.map(\.rid)), \(written.map(\.idJSON)),
                            \(written.map { $0.change.kind == .delete }), \(written.map(\.columnsJSON))) AS u(tbl, rid, id, deleted, columns)
                ON CONFLICT (space, tbl, rid) DO UPDATE
                SET id = excluded.id, version = excluded.version, deleted = excluded.deleted, columns = excluded.columns
                RETURNING tbl, rid, version
                """, logger: logger)
            for try await (table, rid, version) in rows.decode((String, String, Int64).self) {
                versions[[table, rid]] = version
            }
        }

        let results = zip(changes, outcomes).map { prepared, outcome in
            let change = prepared.change
            switch outcome {
            case .write:
                let version = versions[[change.table, prepared.rid]] ?? 0
                let deleted = change.kind == .delete
                return SyncResult(table: change.table, id: change.id, applied: true,
                                  current: SyncRow(table: change.table, id: change.id, version: version, deleted: deleted,
                                                   columns: deleted ? nil : change.columns))
            case .refused(let version):
                return SyncResult(table: change.table, id: change.id, applied: false,
                                  current: SyncRow(table: change.table, id: change.id, version: version, deleted: true))
            case .unchanged(let version):
                return SyncResult(table: change.table, id: change.id, applied: true,
                                  current: SyncRow(table: change.table, id: change.id, version: version, deleted: true))
            }
        }
        return (results, !written.isEmpty)
    }
}
