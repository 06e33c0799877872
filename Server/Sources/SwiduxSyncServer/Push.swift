import Foundation
import Logging
import PostgresNIO
import SwiduxSyncWire

/// Applies a push (``ReceivedPush``) to one space, in one PostgreSQL transaction.
///
/// Under a per-space advisory lock (so that versions in a space are assigned in commit
/// order and a pull never passes a version committed later), it answers the mutations the
/// client already pushed (ids up to its `last_mutation`) with their original results when
/// their content is the same (a replay: the first answer was lost) and refuses the whole
/// request with 409 when it differs (a copied or restored client file), applies the others in order —
/// insert: upsert the live row; update: its columns merged into the live row, every other
/// column kept (``ColumnMerge``; a value it replaces without having seen it is
/// recorded in `sync_conflicts`), or the row written when there is none, unless the row is
/// a tombstone newer than the change's base version (delete wins over a stale update:
/// refused, the tombstone is the result); delete: a tombstone (no new version when it
/// already is one) — gives every
/// written row a new version from `sync_version`, records each mutation (`sync_mutations`)
/// and the last one, and notifies
/// `swidux_push`. A table the space did not declare fails the whole request. A reader's
/// changes, and those a rule refuses (``PushAuthority``, ``SyncRules``), are not written:
/// each is answered refused, with its reason and the stored row.
///
/// ```swift
/// let response = try await Push.apply(request, space: space, authority: .writer, database: database, logger: logger)
/// ```
enum Push {
    /// The LISTEN/NOTIFY channel; the payload is the space's id (followed by
    /// ``Notifier/spacesChangedSuffix`` when its user's spaces changed).
    static let channel = "swidux_push"
    /// The first key of the per-space advisory locks (the second is the space's id).
    static let spaceLockClass: Int32 = 0x5357_4458

    /// One mutation, validated: its changes and the SHA-256 of its canonical JSON
    /// (``MutationHash``), which tells a replay from a conflict.
    private struct PreparedMutation {
        let id: Int64
        let changes: [Prepared]
        let hash: ByteBuffer
    }

    /// What `sync_mutations` keeps of an applied mutation: each change's version and outcome,
    /// and the reason of each refusal ('' for the others; `nil` when no change was refused).
    private struct RememberedMutation {
        let id: Int64
        let hash: ByteBuffer
        let versions: [Int64]
        let applied: [Bool]
        let reasons: [String]?

        init(id: Int64, hash: ByteBuffer, versions: [Int64], applied: [Bool], reasons: [String]?) {
            (self.id, self.hash, self.versions, self.applied, self.reasons) = (id, hash, versions, applied, reasons)
        }

        init(mutation: PreparedMutation, results: [PushAnswer.Result]) {
            let refusedWithReason = results.contains { $0.reason != nil }
            self.init(id: mutation.id, hash: mutation.hash, versions: results.map(\.version), applied: results.map(\.applied),
                      reasons: refusedWithReason ? results.map { $0.reason ?? "" } : nil)
        }
    }

    /// One change, validated and encoded for the database (and for the answer). A class:
    /// the lists a push makes of its changes (written, copied, answered) share them
    /// (copying their four strings was 5 % of the server's CPU in a large push).
    final class Prepared: Sendable {
        let table: String
        let kind: SyncChange.Kind
        let baseVersion: Int64?
        let rid: String
        let idJSON: String
        /// The columns' wire JSON; "" for a delete.
        let columnsJSON: String

        init(table: String, kind: SyncChange.Kind, baseVersion: Int64?, rid: String, idJSON: String, columnsJSON: String) {
            self.table = table
            self.kind = kind
            self.baseVersion = baseVersion
            self.rid = rid
            self.idJSON = idJSON
            self.columnsJSON = columnsJSON
        }

    }

    /// A row of the space: its table and ``SwiduxSyncWire/SyncValue/key``, compared byte
    /// for byte as PostgreSQL compares them (two canonically equivalent spellings of a text
    /// id are two rows).
    fileprivate struct RowKey: Hashable {
        let table: String
        let rid: String

        static func == (a: RowKey, b: RowKey) -> Bool { a.table == b.table && Bytewise.equal(a.rid, b.rid) }

        func hash(into hasher: inout Hasher) {
            hasher.combine(table)
            Bytewise.hash(rid, into: &hasher)
        }
    }

    static func apply(_ request: ReceivedPush, space: Int64, authority: PushAuthority = .writer, database: Database,
                      logger: Logger) async throws -> PushAnswer {
        let mutations = try validate(request)
        do {
            return try await apply(request, mutations, copying: true, space: space, authority: authority, database: database,
                                   logger: logger)
        } catch is RowCopy.KnownRow {
            // A large mutation's insert met a row the space holds (``RowCopy``): the request
            // is applied again, from the start, with upserts only.
            return try await apply(request, mutations, copying: false, space: space, authority: authority, database: database,
                                   logger: logger)
        }
    }

    /// Applies `mutations` (``validate(_:)``) in one transaction; with `copying`, a large
    /// mutation of new rows is written with ``RowCopy``.
    private static func apply(_ request: ReceivedPush, _ mutations: [PreparedMutation], copying: Bool, space: Int64,
                              authority: PushAuthority, database: Database, logger: Logger) async throws -> PushAnswer {
        let tables = Array(Set(mutations.flatMap { $0.changes.map(\.table) })).sorted()
        return try await database.transaction { connection in
            // The space's lock, then the request's tables the space declared: one round trip
            // (a push of 1,000 rows made about fifteen). A volatile function keeps
            // the subquery, and so the lock, evaluated before the row is made.
            // For the transaction, no hash or merge joins: PostgreSQL estimates unnest() of a
            // bound array at its length, and planned the update of a mutation's few thousand
            // merged rows as a hash of every row of the space, once per mutation (a tenth of
            // its time in a push of 100,000 updates, growing with the space); the
            // transaction's joins all go through indexes.
            var known = Set<String>()
            for try await declared in try await connection.query("""
                SELECT ARRAY(SELECT tbl FROM sync_tables WHERE space = \(space) AND tbl = ANY(\(tables)))
                FROM (SELECT pg_advisory_xact_lock(\(spaceLockClass), \(Int32(truncatingIfNeeded: space))),
                             set_config('enable_hashjoin', 'off', true), set_config('enable_mergejoin', 'off', true)) AS space_lock
                """, logger: logger).decode([String].self) { known.formUnion(declared) }
            if let unknown = tables.first(where: { !known.contains($0) }) {
                throw RequestFailure.badRequest("unknown table \"\(unknown)\" (declare it with PUT /\(SyncProtocol.tablesPath))")
            }
            // The client's row, made if new, locked, and its last mutation: one round trip
            // (a push of 1,000 rows made about fifteen).
            var last: Int64 = 0, client: Int64 = 0
            for try await (value, ref) in try await connection.query("""
                INSERT INTO sync_clients AS c (space, client_id, last_mutation) VALUES (\(space), \(request.clientID), 0)
                ON CONFLICT (space, client_id) DO UPDATE SET last_mutation = c.last_mutation
                RETURNING c.last_mutation, c.ref
                """, logger: logger).decode((Int64, Int64).self) { (last, client) = (value, ref) }

            var results: [PushAnswer.Result] = []
            results.reserveCapacity(mutations.reduce(0) { $0 + $1.changes.count })
            var acknowledged: [Int64] = []
            var wrote = false
            // An applied mutation is remembered (`sync_mutations`) with the next statement: the
            // last one with the request's closing statement.
            var unrecorded: RememberedMutation?
            func record() async throws {
                guard let mutation = unrecorded else { return }
                unrecorded = nil
                try await connection.query("""
                    INSERT INTO sync_mutations (space, client_id, id, hash, versions, applied, reasons)
                    VALUES (\(space), \(request.clientID), \(mutation.id), \(mutation.hash), \(mutation.versions), \(mutation.applied),
                            \(mutation.reasons))
                    """, logger: logger)
            }
            for mutation in mutations {
                if mutation.id > last {
                    let (mutationResults, mutationWrote) = try await applyMutation(mutation.changes, copying: copying, space: space,
                                                                                   client: client, clientID: request.clientID,
                                                                                   authority: authority, connection: connection,
                                                                                   logger: logger)
                    try await record()
                    unrecorded = RememberedMutation(mutation: mutation, results: mutationResults)
                    results += mutationResults
                    wrote = wrote || mutationWrote
                    last = mutation.id
                } else {
                    results += try await replay(mutation, space: space, clientID: request.clientID, connection: connection, logger: logger)
                }
                acknowledged.append(mutation.id)
            }
            // The last applied mutation, the client's last mutation, the mutations no longer
            // remembered, and the notification when rows were written: one statement.
            let forget = last - keptMutations
            let closing = unrecorded ?? RememberedMutation(id: 0, hash: ByteBuffer(), versions: [], applied: [], reasons: nil)
            var conflicts: Int64 = 0
            for try await value in try await connection.query("""
                WITH recorded AS (
                    INSERT INTO sync_mutations (space, client_id, id, hash, versions, applied, reasons)
                    SELECT \(space), \(request.clientID), \(closing.id), \(closing.hash), \(closing.versions), \(closing.applied),
                           \(closing.reasons)
                    WHERE \(unrecorded != nil)
                ), client AS (
                    UPDATE sync_clients SET last_mutation = \(last) WHERE space = \(space) AND client_id = \(request.clientID)
                ), forgotten AS (
                    DELETE FROM sync_mutations WHERE space = \(space) AND client_id = \(request.clientID) AND id <= \(forget)
                ), notified AS (
                    SELECT pg_notify(\(channel), \(String(space))) WHERE \(wrote)
                )
                SELECT (SELECT coalesce(max(id), 0) FROM sync_conflicts WHERE space = \(space)) + 0 * (SELECT count(*) FROM notified)
                """, logger: logger).decode(Int64.self) { conflicts = value }
            var answer = PushAnswer(lastMutationID: last, results: results, acknowledged: acknowledged,
                                    resultColumns: request.resultColumns)
            answer.conflicts = conflicts
            return answer
        }
    }

    /// How many of a client's last mutations are remembered for replays (an older id is
    /// answered 409 like a conflict: the client re-identifies and pushes again, losing nothing).
    static let keptMutations: Int64 = 1000

    /// The original results of a mutation applied by an earlier request (its answer was
    /// lost); 409 ``SyncErrorBody/Code/mutationConflict`` when the id was used for another
    /// content (or is too old to be remembered).
    private static func replay(_ mutation: PreparedMutation, space: Int64, clientID: String, connection: PostgresConnection,
                               logger: Logger) async throws -> [PushAnswer.Result] {
        var stored: (versions: [Int64], applied: [Bool], reasons: [String]?)?
        for try await (versions, applied, reasons) in try await connection.query("""
            SELECT versions, applied, reasons FROM sync_mutations
            WHERE space = \(space) AND client_id = \(clientID) AND id = \(mutation.id)
              AND hash = \(mutation.hash)
            """, logger: logger).decode(([Int64], [Bool], [String]?).self) {
            stored = (versions, applied, reasons)
        }
        guard let stored, stored.versions.count == mutation.changes.count, stored.applied.count == mutation.changes.count else {
            throw RequestFailure.conflict(.mutationConflict, "mutation \(mutation.id) of client \(clientID) was already applied with another content (a copied or restored database file?): nothing was applied; push again under a new client id")
        }
        // A refused change is answered with the row the space holds now and the reason of the
        // first answer: the device takes it, as from the first answer.
        let refused = mutation.changes.indices.filter { !stored.applied[$0] }
        let current = try await storedRows(refused.map { mutation.changes[$0] }, space: space, connection: connection, logger: logger)
        let currentByPlace = Dictionary(uniqueKeysWithValues: zip(refused, current))
        func reason(_ index: Int) -> String? {
            guard let reasons = stored.reasons, reasons.indices.contains(index), !reasons[index].isEmpty else { return nil }
            return reasons[index]
        }
        return zip(mutation.changes.indices, zip(stored.versions, stored.applied)).map { index, outcome in
            let (version, applied) = outcome
            let prepared = mutation.changes[index]
            if !applied, let row = currentByPlace[index] ?? nil {
                var result = PushAnswer.Result(change: prepared, applied: false, version: row.version, deleted: row.deleted,
                                               merged: row.columns)
                result.echo = true
                result.reason = reason(index)
                return result
            }
            let deleted = !applied || prepared.kind == .delete
            var result = PushAnswer.Result(change: prepared, applied: applied, version: version, deleted: deleted)
            if !applied { result.reason = reason(index) }
            return result
        }
    }

    /// Checks the request's shape (400 with the reason) and encodes every change.
    private static func validate(_ request: ReceivedPush) throws -> [PreparedMutation] {
        guard !request.clientID.isEmpty, request.clientID.utf8.count <= 200 else {
            throw RequestFailure.badRequest("invalid clientID: it must have 1 to 200 bytes")
        }
        // PostgreSQL text cannot hold U+0000 (ids and the client id are stored as text).
        guard !request.clientID.utf8.contains(0) else {
            throw RequestFailure.badRequest("invalid clientID: it contains a NUL character (U+0000)")
        }
        var previous: Int64 = 0
        return try request.mutations.map { mutation in
            guard mutation.id > previous else {
                throw RequestFailure.badRequest("mutation ids must be positive and increasing (\(mutation.id) after \(previous))")
            }
            previous = mutation.id
            var seen = Set<RowKey>()
            seen.reserveCapacity(mutation.changes.count)
            let changes = try mutation.changes.map { change in
                guard SyncProtocol.isValidTableName(change.table) else {
                    throw RequestFailure.badRequest("invalid table name \"\(change.table)\"")
                }
                let keyBytes = SyncProtocol.keyBytes(of: change.id)
                guard keyBytes <= SyncProtocol.maxKeyBytes else {
                    throw RequestFailure.contentTooLarge("the id of \(change.table) in mutation \(mutation.id) (\(change.id.key.prefix(40))…) has \(keyBytes) bytes, more than the \(SyncProtocol.maxKeyBytes) an id may have (SyncProtocol.maxKeyBytes): nothing was applied")
                }
                let written = try encode(what: "id of \(change.table)") { try WireJSON.id(change.id) }
                let idJSON = written.json, rid = written.key
                guard !rid.utf8.contains(0) else {
                    throw RequestFailure.badRequest("invalid id of \(change.table) in mutation \(mutation.id): it contains a NUL character (U+0000)")
                }
                guard seen.insert(RowKey(table: change.table, rid: rid)).inserted else {
                    throw RequestFailure.badRequest("mutation \(mutation.id) changes \(change.table) \(rid) twice")
                }
                var columnsJSON = ""
                if change.kind != .delete {
                    guard let columns = change.columnsJSON else {
                        throw RequestFailure.badRequest("the \(change.kind.rawValue) of \(change.table) \(rid) in mutation \(mutation.id) has no columns")
                    }
                    columnsJSON = columns
                }
                return Prepared(table: change.table, kind: change.kind, baseVersion: change.baseVersion, rid: rid,
                                idJSON: idJSON,
                                columnsJSON: columnsJSON)
            }
            return PreparedMutation(id: mutation.id, changes: changes, hash: MutationHash.of(id: mutation.id, changes: changes))
        }
    }

    private static func encode<Written>(what: String, _ body: () throws -> Written) throws -> Written {
        do { return try body() } catch {
            throw RequestFailure.badRequest("cannot store the \(what): \(error)")
        }
    }

    /// Applies one mutation's changes with two bulk statements: the current state of the
    /// rows updates and deletes touch (an update's live row with its columns and `meta`),
    /// then one statement writing every row (with their new versions): merged rows updated in
    /// place, the others upserted — and a third when an update replaced values it had not
    /// seen (``ColumnMerge``): the conflicts.
    private static func applyMutation(_ changes: [Prepared], copying: Bool, space: Int64, client: Int64, clientID: String,
                                      authority: PushAuthority, connection: PostgresConnection,
                                      logger: Logger) async throws -> ([PushAnswer.Result], Bool) {
        struct Existing { let version: Int64; let deleted: Bool; let columns: String?; let meta: String? }
        // Each change's stored row, by the change's place. The rows are answered by their
        // place in the look-up, not by their table and id (no strings to make and hash per
        // row), and as one row of arrays (PostgresNIO handles each row of an answer at a
        // cost, as ``RowCopy`` found for versions). A text `''` is no text: a row's columns
        // are a JSON object, its `meta` never empty. Each row is found through the primary
        // key (the `LIMIT 1` keeps the subquery a nested loop): as a plain join, a mutation
        // of a few thousand rows was planned as a hash of every row of the space, read again
        // for each mutation (half of PostgreSQL's time in a push of 100,000 updates).
        var existing = [Existing?](repeating: nil, count: changes.count)
        let looked = changes.indices.filter { changes[$0].kind != .insert }
        if !looked.isEmpty {
            let rows = try await connection.query("""
                SELECT array_agg(u.n), array_agg(r.version), array_agg(r.deleted),
                       array_agg(coalesce(CASE WHEN u.merge AND NOT r.deleted THEN r.columns::text END, '')),
                       array_agg(coalesce(CASE WHEN u.merge THEN r.meta END, ''))
                FROM unnest(\(looked.map { changes[$0].table }), \(looked.map { changes[$0].rid }),
                            \(looked.map { changes[$0].kind == .update }))
                     WITH ORDINALITY AS u(tbl, rid, merge, n)
                CROSS JOIN LATERAL (
                    SELECT version, deleted, columns, meta FROM sync_rows
                    WHERE space = \(space) AND tbl = u.tbl AND rid = u.rid LIMIT 1
                ) r
                """, logger: logger)
            for try await (places, versions, deleted, columns, metas)
                in rows.decode(([Int64]?, [Int64]?, [Bool]?, [String]?, [String]?).self) {
                guard let places, let versions, let deleted, let columns, let metas else { continue }
                guard versions.count == places.count, deleted.count == places.count, columns.count == places.count,
                      metas.count == places.count else {
                    throw SyncServerError("the look-up answered arrays of different lengths")
                }
                for (index, n) in places.enumerated() {
                    guard n >= 1, n <= looked.count else { throw SyncServerError("the look-up answered row \(n) of \(looked.count)") }
                    existing[looked[Int(n) - 1]] = Existing(version: versions[index], deleted: deleted[index],
                                                            columns: columns[index].isEmpty ? nil : columns[index],
                                                            meta: metas[index].isEmpty ? nil : metas[index])
                }
            }
        }

        // `merge`: `newer` when the stored row changed since the update's base (other
        // columns may have changed: the answer carries the merged row). Not for an update
        // without a base (a client that pushes every column it has).
        enum Outcome { case write, merge(ColumnMerge.Result, newer: Bool), refused(Int64), unchanged(Int64) }
        let outcomes: [Outcome] = try zip(changes, existing).map { prepared, current in
            switch prepared.kind {
            case .insert: return .write
            case .update:
                guard let current else { return .write }
                if current.deleted, current.version > (prepared.baseVersion ?? 0) { return .refused(current.version) }
                // A live row: the update's columns over the stored ones.
                guard !current.deleted, let stored = current.columns else { return .write }
                do {
                    return .merge(try ColumnMerge.merge(stored: stored, meta: current.meta, rowVersion: current.version,
                                                        pushed: prepared.columnsJSON, baseVersion: prepared.baseVersion, client: client),
                                  newer: prepared.baseVersion.map { current.version > $0 } ?? false)
                } catch {
                    throw SyncServerError("the stored row \(prepared.table) \(prepared.rid) cannot be merged: \(error)")
                }
            case .delete:
                if let current, current.deleted { return .unchanged(current.version) }
                return .write
            }
        }

        // A reader's changes, and those of tables with a rule, each with the row it would leave.
        var checked: [Checked] = []
        if authority.checksAny {
            for (index, (prepared, outcome)) in zip(changes, outcomes).enumerated() where authority.checks(prepared.table) {
                switch outcome {
                case .write: checked.append(Checked(index: index, after: prepared.kind == .delete ? nil : prepared.columnsJSON))
                case .merge(let merged, _): checked.append(Checked(index: index, after: merged.columns))
                // Nothing is written (delete wins, or the row is deleted already): a rule has
                // nothing to decide, a reader's change is refused all the same.
                case .refused, .unchanged: if authority.role == .reader { checked.append(Checked(index: index, after: nil)) }
                }
            }
        }
        let verdicts = try await Self.verdicts(changes, checked, authority: authority, space: space, connection: connection, logger: logger)

        // The rows written, the columns and `meta` each is written with, and whether it is
        // merged into its stored row (which is then updated in place). A rewritten row is
        // written as a new change with the rule's columns (a rewritten delete keeps the row).
        var written: [Prepared] = [], writtenColumns: [String] = [], writtenMeta: [String] = [], writtenMerged: [Bool] = []
        written.reserveCapacity(changes.count)
        writtenColumns.reserveCapacity(changes.count)
        writtenMeta.reserveCapacity(changes.count)
        writtenMerged.reserveCapacity(changes.count)
        var anyMerge = false
        for (index, (prepared, outcome)) in zip(changes, outcomes).enumerated() {
            var rewritten: String?
            switch verdicts[index] {
            case .refused?: continue
            case .rewritten(let columns)?: rewritten = columns
            case nil: break
            }
            switch outcome {
            case .write:
                let change = rewritten.map {
                    Prepared(table: prepared.table, kind: prepared.kind == .delete ? .update : prepared.kind,
                             baseVersion: prepared.baseVersion, rid: prepared.rid, idJSON: prepared.idJSON, columnsJSON: $0)
                } ?? prepared
                written.append(change)
                writtenColumns.append(change.columnsJSON)
                writtenMeta.append("")
                writtenMerged.append(false)
            case .merge(let merged, _):
                written.append(prepared)
                writtenColumns.append(rewritten ?? merged.columns)
                writtenMeta.append(merged.meta)
                writtenMerged.append(true)
                anyMerge = true
            case .refused, .unchanged:
                break
            }
        }
        // A large mutation of rows the space does not hold yet (a first push): COPY (``RowCopy``).
        // One of its inserts being a known row after all throws ``RowCopy/KnownRow``.
        var copied: [Int64]?
        if copying, !anyMerge, written.count >= RowCopy.minimumRows,
           zip(changes, existing).allSatisfy({ $0.kind == .insert || $1 == nil }) {
            copied = try await RowCopy.insert(written, space: space, connection: connection, logger: logger)
        }
        // Else one statement: a version for each written row (`v`, materialized: nextval runs
        // once a row); the merged rows updated in place (they were just read: no conflict
        // check, and no row lock before the update, which an upsert takes), the others
        // upserted; and the versions in the rows' order, as one array (as ``RowCopy`` takes
        // them: a row answered per version was a tenth of the server's CPU in a first push).
        var versions = copied ?? []
        if !written.isEmpty, copied == nil {
            let rows = try await connection.query("""
                WITH v AS MATERIALIZED (
                    SELECT u.*, nextval('sync_version') AS version
                    FROM unnest(\(written.map(\.table)), \(written.map(\.rid)), \(written.map(\.idJSON)),
                                \(written.map { $0.kind == .delete }), \(writtenColumns), \(writtenMeta), \(writtenMerged))
                         WITH ORDINALITY AS u(tbl, rid, id, deleted, columns, meta, merged, n)
                ), updated AS (
                    UPDATE sync_rows r SET version = v.version, columns = v.columns::json, meta = v.meta
                    FROM v WHERE v.merged AND r.space = \(space) AND r.tbl = v.tbl AND r.rid = v.rid
                ), written AS (
                    INSERT INTO sync_rows (space, tbl, rid, id, version, deleted, columns, meta)
                    SELECT \(space), v.tbl, v.rid, v.id::json, v.version, v.deleted, NULLIF(v.columns, '')::json, NULLIF(v.meta, '')
                    FROM v WHERE NOT v.merged
                    ON CONFLICT (space, tbl, rid) DO UPDATE
                    SET id = excluded.id, version = excluded.version, deleted = excluded.deleted, columns = excluded.columns,
                        meta = excluded.meta
                )
                SELECT array_agg(version ORDER BY n) FROM v
                """, logger: logger)
            for try await row in rows { versions = try row.decode([Int64].self) }
            guard versions.count == written.count else {
                throw SyncServerError("the upsert answered \(versions.count) versions for \(written.count) rows")
            }
        }

        var next = versions.makeIterator()
        // Values replaced without having been seen: recorded for the clients that wrote them.
        var conflicts: [(prepared: Prepared, conflict: ColumnMerge.Conflict, version: Int64)] = []
        let results = zip(changes.indices, zip(changes, outcomes)).map { index, pair in
            let (prepared, outcome) = pair
            switch verdicts[index] {
            case .refused(let reason, let current)?:
                // The device takes the row the space holds (a tombstone of version 0 when it
                // never had one: the device deletes its row).
                var result = PushAnswer.Result(change: prepared, applied: false, version: current?.version ?? 0,
                                               deleted: current?.deleted ?? true, merged: current?.columns)
                result.echo = true
                result.reason = reason
                return result
            case .rewritten(let columns)?:
                let version = next.next() ?? 0
                if case .merge(let merged, _) = outcome {
                    for conflict in merged.conflicts { conflicts.append((prepared, conflict, version)) }
                }
                var result = PushAnswer.Result(change: prepared, applied: true, version: version, deleted: false, merged: columns)
                result.echo = true
                return result
            case nil:
                break
            }
            switch outcome {
            case .write:
                let deleted = prepared.kind == .delete
                return PushAnswer.Result(change: prepared, applied: true, version: next.next() ?? 0, deleted: deleted)
            case .merge(let merged, let newer):
                let version = next.next() ?? 0
                for conflict in merged.conflicts { conflicts.append((prepared, conflict, version)) }
                var result = PushAnswer.Result(change: prepared, applied: true, version: version, deleted: false, merged: merged.columns)
                result.echo = newer
                return result
            case .refused(let version):
                return PushAnswer.Result(change: prepared, applied: false, version: version, deleted: true)
            case .unchanged(let version):
                return PushAnswer.Result(change: prepared, applied: true, version: version, deleted: true)
            }
        }
        if !conflicts.isEmpty {
            try await record(conflicts, space: space, clientID: clientID, connection: connection, logger: logger)
        }
        return (results, !written.isEmpty)
    }

    /// Inserts `conflicts` into `sync_conflicts`, each addressed to the client that wrote the
    /// replaced value (a column name PostgreSQL text cannot hold, with U+0000, is left out).
    private static func record(_ conflicts: [(prepared: Prepared, conflict: ColumnMerge.Conflict, version: Int64)], space: Int64,
                               clientID: String, connection: PostgresConnection, logger: Logger) async throws {
        let kept = conflicts.filter { !$0.conflict.column.utf8.contains(0) }
        guard !kept.isEmpty else { return }
        try await connection.query("""
            INSERT INTO sync_conflicts (space, tbl, rid, row_id, col, kept, replaced, kept_client, replaced_client,
                                        kept_version, replaced_version)
            SELECT \(space), u.tbl, u.rid, u.row_id, u.col, u.kept, u.replaced, \(clientID), c.client_id, u.kept_version,
                   u.replaced_version
            FROM unnest(\(kept.map(\.prepared.table)), \(kept.map(\.prepared.rid)), \(kept.map(\.prepared.idJSON)),
                        \(kept.map(\.conflict.column)), \(kept.map(\.conflict.kept)), \(kept.map(\.conflict.replaced)),
                        \(kept.map(\.conflict.replacedClient)), \(kept.map(\.version)), \(kept.map(\.conflict.replacedVersion)))
                 WITH ORDINALITY AS u(tbl, rid, row_id, col, kept, replaced, ref, kept_version, replaced_version, n)
            JOIN sync_clients c ON c.space = \(space) AND c.ref = u.ref
            ORDER BY u.n
            """, logger: logger)
    }
}
