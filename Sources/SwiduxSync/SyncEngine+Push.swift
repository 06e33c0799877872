import Foundation
import GRDB
import SwiduxSQLite
import SwiduxSyncWire

/// A mutation stored before it is sent: its exact bytes, resent as they are until the
/// server acknowledges it.
struct PendingMutation: Sendable, Equatable {
    let id: Int64
    /// The JSON of the ``SyncMutation``.
    let payload: Data
    /// The last outbox sequence it covers (for the rows it names).
    let throughSequence: Int64
    /// The rows it changes, in order, when it was built by this process (else read from
    /// ``payload``).
    var keys: [RowKey]? = nil
    /// When it was built by this process: the outbox sequences it covers, every entry between
    /// them being one of its rows', or of a row of a mutation built before it in the same
    /// call (or of a table no longer synced). Its acknowledgement then deletes that range
    /// (deleting by row was about a tenth of a first push). A row's entries past
    /// the range stay, and push it again (its columns already sent; a cut request only).
    var covered: ClosedRange<Int64>? = nil

    static func == (lhs: PendingMutation, rhs: PendingMutation) -> Bool {
        lhs.id == rhs.id && lhs.payload == rhs.payload && lhs.throughSequence == rhs.throughSequence
    }

    func decoded() throws -> SyncMutation { try JSONDecoder().decode(SyncMutation.self, from: payload) }

    /// The rows it changes, in order.
    func changedKeys() throws -> [RowKey] {
        if let keys { return keys }
        return try decoded().changes.map { RowKey(table: $0.table, id: $0.id.databaseValue) }
    }
}

/// What acknowledging a push answer did.
struct Acknowledgement: Equatable {
    var changes = 0
    var refused = 0
    var mutations = 0
    /// The bytes of the request bodies sent.
    var bytes = 0
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
    ///
    /// At most about `requestBytes` of mutations are built or loaded at a time (one request:
    /// a first push of 100,000 rows holds one request in memory, not the file):
    /// the rows left out keep their outbox entries for the next call; and at most
    /// `requestRows` rows (small updates would otherwise make one request of tens of thousands).
    ///
    /// While earlier mutations are in flight (``SyncClient`` builds the next request while the
    /// server applies one), `after` is the last of them and `inFlight` the rows they change:
    /// only stored mutations after `after` are loaded, and those rows are left for a later
    /// call (their outbox entries stay until the flight is acknowledged).
    ///
    /// `unversionedThrough` (``unversionedMark()`` when the push began): the rows of outbox
    /// entries up to it have no version, so none is looked up (a first push looked
    /// up every row once the first request was acknowledged).
    ///
    /// `scanAfter`: the last sequence the mutations in flight cover (``PendingMutation/covered``):
    /// the entries up to it belong to rows in flight (or were sent already and push their rows
    /// again), so the outbox is read from after it (each request of a first push
    /// read again the entries of the one in flight). Whatever it leaves is found by the next
    /// call without it, which a push ends with.
    func preparePush(requestBytes: Int = SyncProtocol.maxBodyBytes / 2, requestRows: Int = .max, after: Int64 = 0,
                     inFlight: Set<RowKey> = [], unversionedThrough: Int64 = 0, scanAfter: Int64 = 0) throws -> [PendingMutation] {
        try writer.write { db in
            let stored = try self.storedPending(db, after: after, limit: requestBytes)
            if !stored.isEmpty { return stored }
            let mark = try Int64.fetchOne(db, sql: "SELECT max(seq) FROM \(schema.outbox)") ?? 0
            guard mark > 0 else { return [] }
            // A row whose first entry read is an update has its entries looked up (``fold(_:)``):
            // that needs the outbox's index (a first push, every entry an insert, does not).
            if try !schema.hasOutboxIndex(db),
               try Bool.fetchOne(db, sql: "SELECT EXISTS (SELECT 1 FROM \(schema.outbox) WHERE seq > ? AND seq <= ? AND op <> 'I')",
                                 arguments: [scanAfter, mark]) ?? true {
                try schema.ensureOutboxIndex(db)
            }
            let firstID = Int64.fromDatabaseValue(try schema.value("nextMutation", db)) ?? 1
            var next = firstID
            var built: [PendingMutation] = []
            var total = 0
            var mutation = WireWriter(), change = WireWriter()
            var keys: [RowKey] = []
            var rowsTaken = 0
            // The sequences the open mutation covers: from its first entry (or just past the
            // mutation before, and past any row in flight met since) to the last entry read for
            // it (its rows', and others of rows already in this call's mutations); none once a
            // row in flight is met in between.
            var rangeStart: Int64?, lastSeen: Int64 = 0, lastInFlight: Int64 = 0, rangeBroken = false
            // `mutation` holds the open mutation's payload as it is written, from its
            // `{"changes":[` (copying its changes into a payload was a megabyte
            // more per mutation); `changesBytes` is the size of its changes.
            let opening: StaticString = "{\"changes\":["
            var changesBytes: Int { keys.isEmpty ? 0 : mutation.count - opening.utf8CodeUnitCount }
            func close() throws {
                guard !keys.isEmpty else { return }
                mutation.raw("],\"id\":")
                mutation.integer(next)
                mutation.raw("}")
                let data = Data(mutation.output)
                try db.cachedStatement(sql: "INSERT INTO \(schema.pending) (id, payload, through_seq) VALUES (?, ?, ?)")
                    .execute(arguments: [next, data, mark])
                built.append(PendingMutation(id: next, payload: data, throughSequence: mark, keys: keys,
                                             covered: rangeBroken ? nil : rangeStart.map { $0...lastSeen }))
                // An entry of a row in flight after the last one read is the next range's: left out.
                rangeStart = max(lastSeen, lastInFlight) + 1
                rangeBroken = false
                total += data.count + 1
                next += 1
                mutation.removeAll()
                keys.removeAll()
            }
            // The rows met in this call and the rows in flight, as ``CompactRowKey``s, the
            // first sized for the entries to read (at most a request's worth of them).
            var included = Set<CompactRowKey>(minimumCapacity: Int(max(0, min(mark - scanAfter, 1 << 16))))
            let inFlight = Set(inFlight.lazy.map(self.compactKey))
            // A never-synced file has no versions: no row needs the look-up (a first push).
            let anyVersion = try self.anyVersion(db)
            var rows = CurrentRows()
            let operations = try db.cachedStatement(sql: "SELECT op, cols FROM \(schema.outbox) WHERE tbl = ? AND rid = ? AND seq <= ? ORDER BY seq")
            // A server that merges updates by column gets only an update's changed columns;
            // an older one, whole rows.
            let merges = try self.serverMerges(db)
            // Each entry with its row's version, in the same pass (a look-up statement per row
            // was 6 % of the client's time in a push of updates); none for a never-synced file.
            let entries = try Row.fetchCursor(db, sql: anyVersion ? """
                SELECT o.tbl, o.rid, o.op, o.seq, v.version FROM \(schema.outbox) o
                LEFT JOIN \(schema.version) v ON v.tbl = o.tbl AND v.rid = o.rid
                WHERE o.seq > ? AND o.seq <= ? ORDER BY o.seq
                """ : "SELECT tbl, rid, op, seq, NULL FROM \(schema.outbox) WHERE seq > ? AND seq <= ? ORDER BY seq",
                                              arguments: [scanAfter, mark])
            // Entries before `scanAfter` are left: some may be of rows in flight.
            var leftInFlight = scanAfter > 0
            scan: while let entry = try entries.next() {
                let key = RowKey(table: entry[0], id: entry[1])
                let sequence: Int64 = entry[3]
                let tableIndex = self.tableIndexes[key.table]
                let compact = CompactRowKey(key, table: tableIndex)
                if !inFlight.isEmpty, inFlight.contains(compact) {
                    leftInFlight = true
                    lastInFlight = sequence
                    if rangeStart != nil { rangeBroken = true }
                    continue
                }
                if rangeStart == nil { rangeStart = sequence }
                guard let tableIndex, included.insert(compact).inserted else {
                    lastSeen = sequence
                    continue
                }
                let table = self.tables[tableIndex]
                // A row whose first entry is an insert or a deletion is inserted when it exists
                // and deleted when not (``fold(_:)``); only one first updated needs its entries
                // read (a first push, every row inserted, reads none).
                let first: String = entry[2]
                var kind = SyncChange.Kind.delete
                let baseVersion: Int64? = sequence > unversionedThrough ? entry[4] : nil
                // An update of a row the server has: only the columns its entries name (none
                // unnamed: an entry of an older outbox, or of a table whose columns changed).
                var changedColumns: Set<String>?
                if first == "U" {
                    // Read in place: no `Row` copied per entry (a push of updates reads one per row).
                    var folded: [String] = [], columnLists: [String?] = []
                    let cursor = try Row.fetchCursor(operations, arguments: [key.table, key.id, mark])
                    while let entry = try cursor.next() {
                        folded.append(entry[0])
                        columnLists.append(entry[1])
                    }
                    kind = Self.fold(folded)
                    if kind == .update, merges, baseVersion != nil {
                        changedColumns = []
                        for cols in columnLists {
                            guard let cols else {
                                changedColumns = nil
                                break
                            }
                            changedColumns?.formUnion(SyncSchema.columnNames(cols))
                        }
                    }
                }
                // A row of another space is not this space's to push, unless this space has it:
                // then it moved out (or was deleted), and leaves this space as a deletion.
                var leaves = false
                if self.space != nil || table.spaceColumn != nil {
                    let known = (entry[4] as Int64?) != nil
                    if try !self.isHere(key, table: table, db) {
                        guard known else {
                            lastSeen = sequence
                            continue
                        }
                        leaves = true
                    } else if !known, kind == .update {
                        // Moved in (or back, after it left as a deletion): the space has no live
                        // row to update, and gets it whole (an update without a base is refused
                        // over a tombstone).
                        kind = .insert
                        changedColumns = nil
                    }
                }
                change.removeAll()
                change.beginChange(baseVersion: baseVersion)
                if leaves {
                    kind = .delete
                } else if try rows.writeColumns(of: key, table: table, into: &change, only: changedColumns, db) {
                    if kind == .delete { kind = .insert }
                } else {
                    kind = .delete
                }
                try change.endChange(table: key.table, id: key.id, kind: kind)
                let size = change.count + 1
                let longestName = kind == .delete ? 0 : try rows.longestColumnName(of: table, db)
                if Self.keyBytes(of: key.id) > SyncProtocol.maxKeyBytes || longestName > SyncProtocol.maxKeyBytes {
                    // An id or a column name longer than the server can index: it can never be
                    // stored there (413). Set aside and reported, like a change too large.
                    try self.setAside(key, bytes: size, through: mark, db)
                    lastSeen = sequence
                    continue
                }
                if size > self.maxChangeBytes {
                    // It can never be sent (the server refuses a body this large): set it
                    // aside and report it; the rest keeps syncing.
                    try self.setAside(key, bytes: size, through: mark, db)
                    lastSeen = sequence
                    continue
                }
                if total + changesBytes + size > requestBytes || rowsTaken >= requestRows, !(built.isEmpty && keys.isEmpty) {
                    // A request's worth: the rest waits for the next call.
                    included.remove(compact)
                    break scan
                }
                if changesBytes + size > self.mutationBytes, !keys.isEmpty { try close() }
                mutation.raw(keys.isEmpty ? opening : ",")
                mutation.append(change)
                keys.append(key)
                rowsTaken += 1
                lastSeen = sequence
            }
            try close()
            if built.isEmpty, !leftInFlight {
                // Only rows of tables no longer synced or set aside: nothing to send for them.
                try db.execute(sql: "DELETE FROM \(schema.outbox) WHERE seq <= ?", arguments: [mark])
            }
            // Nothing built (everything left is in flight, say): nothing written.
            if next != firstID { try schema.setValue("nextMutation", next, db) }
            return built
        }
    }

    /// The bytes of `id` that ``SwiduxSyncWire/SyncProtocol/maxKeyBytes`` bounds: a text's
    /// UTF-8, a blob's bytes.
    static func keyBytes(of id: DatabaseValue) -> Int {
        switch id.storage {
        case .string(let text): text.utf8.count
        case .blob(let data): data.count
        default: 0
        }
    }

    /// The `scanAfter` of ``preparePush(requestBytes:after:inFlight:unversionedThrough:scanAfter:)``
    /// while `inFlight` is sent: the last sequence they cover, when each covers a known range
    /// (``PendingMutation/covered``), else 0 (the whole outbox is read).
    static func scanAfter(_ inFlight: [PendingMutation]) -> Int64 {
        let covered = inFlight.compactMap(\.covered)
        return covered.count == inFlight.count ? covered.map(\.upperBound).max() ?? 0 : 0
    }

    /// The last outbox sequence when no version is recorded and no mutation is stored (a file
    /// never synced, or rebased), else 0. Until the push that reads it ends, the rows of
    /// entries up to it still have no version: one acknowledged meanwhile was in a mutation
    /// built after this, which covered its entries up to it (deleted with the
    /// acknowledgement), and a later change of it has a later entry.
    func unversionedMark() throws -> Int64 {
        try writer.read { db in
            try self.anyVersion(db) || SyncSchema.hasRows(schema.pending, db) ? 0 : schema.lastOutboxSequence(db)
        }
    }


    /// Deletes the outbox entries of `keys` up to `sequence`, many rows per statement.
    func deleteOutboxEntries(of keys: [RowKey], through sequence: Int64, _ db: Database) throws {
        let perStatement = outboxDelete.full
        var byTable: [String: [DatabaseValue]] = [:]
        for key in keys { byTable[key.table, default: []].append(key.id) }
        for (table, ids) in byTable {
            var start = 0
            while start < ids.count {
                let chunk = ids[start..<min(start + perStatement, ids.count)]
                try outboxDelete.execute(rows: chunk.count, [sequence.databaseValue, table.databaseValue] + chunk, db)
                start += perStatement
            }
        }
    }

    /// The stored mutations not acknowledged yet, after `after`, in order, about `limit` bytes
    /// of them at most (at least one).
    func storedPending(_ db: Database, after: Int64 = 0, limit: Int = .max) throws -> [PendingMutation] {
        var pending: [PendingMutation] = []
        var bytes = 0
        let rows = try Row.fetchCursor(db, sql: "SELECT id, payload, through_seq FROM \(schema.pending) WHERE id > ? ORDER BY id",
                                       arguments: [after])
        while let row = try rows.next() {
            let mutation = PendingMutation(id: row[0], payload: row[1], throughSequence: row[2])
            if !pending.isEmpty, bytes + mutation.payload.count > limit { break }
            pending.append(mutation)
            bytes += mutation.payload.count + 1
        }
        return pending
    }

    /// The body of `POST /v1/push` for `mutations`, their stored bytes as they are, asking
    /// for results without the rows' columns (``PushRequest/resultColumns``).
    static func pushBody(clientID: String, scope: String? = nil, _ mutations: [PendingMutation]) throws -> Data {
        var body = Data()
        // One allocation for the megabytes of a large push (growing it copied them).
        body.reserveCapacity(mutations.reduce(64 + clientID.utf8.count * 2 + (scope?.utf8.count ?? 0) * 2) { $0 + $1.payload.count + 1 })
        body.append(Data(#"{"clientID":"#.utf8))
        body.append(try JSONEncoder().encode(clientID))
        if let scope {
            body.append(Data(#","scope":"#.utf8))
            body.append(try JSONEncoder().encode(scope))
        }
        // The answer need not repeat the rows' columns: ``PushAnswer`` reads none of them.
        body.append(Data(#","resultColumns":false,"mutations":["#.utf8))
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
    /// (its tombstone: the row is deleted locally, not pushed back; or, for a change a rule
    /// of the server refused, the row as the server holds it, listed with its reason among
    /// the conflicts, kind `.refused`). A set-aside row that is
    /// acknowledged now is no longer set aside. From an older server only: a mutation
    /// acknowledged without results (applied by an earlier request whose answer was lost)
    /// resets the cursor, so that the next pull brings the server's state again.
    func acknowledge(_ response: PushResponse, sent: [PendingMutation]) throws -> Acknowledgement {
        try acknowledge(PushAnswer(response), sent: sent)
    }

    func acknowledge(_ response: PushAnswer, sent: [PendingMutation]) throws -> Acknowledgement {
        try writer.write { db in
            try db.execute(sql: "PRAGMA defer_foreign_keys = ON")
            var result = Acknowledgement()
            let mark = try schema.lastOutboxSequence(db)
            let otherMarks = try self.otherOutboxes(db)
            let journalMark = try ChangeJournal.lastSequence(db)
            var expected = 0
            let acknowledged = response.acknowledged.map(Set.init)
            let anySetAside = try SyncSchema.hasRows(SyncSchema.setAside, db)
            // Entries deleted by row (a mutation without a known range) are looked up by row.
            if sent.contains(where: { $0.covered == nil }) { try schema.ensureOutboxIndex(db) }
            let unset = try db.cachedStatement(sql: "DELETE FROM \(SyncSchema.setAside) WHERE tbl = ? AND rid = ?")
            for mutation in sent where acknowledged?.contains(mutation.id) ?? (mutation.id <= response.lastMutationID) {
                let keys = try mutation.changedKeys()
                expected += keys.count
                result.changes += keys.count
                result.mutations += 1
                if let covered = mutation.covered {
                    try db.cachedStatement(sql: "DELETE FROM \(schema.outbox) WHERE seq BETWEEN ? AND ?")
                        .execute(arguments: [covered.lowerBound, covered.upperBound])
                } else {
                    try self.deleteOutboxEntries(of: keys, through: mutation.throughSequence, db)
                }
                if anySetAside {
                    for key in keys { try unset.execute(arguments: [key.table, key.id]) }
                }
                try db.execute(sql: "DELETE FROM \(schema.pending) WHERE id = ?", arguments: [mutation.id])
            }
            if let scope = response.scope, try schema.value("scope", db).isNull {
                try schema.setValue("scope", scope, db)
            }
            if response.conflicts != nil { try self.noteServerMerges(db) }
            var refusedKeys: [RowKey] = []
            var rows = RowWriter()
            // A parked row older than what the server now holds for its id is stale: dropped,
            // as a pulled page drops it. Own rows are not pulled back (`OwnVersions`), so this
            // is the only moment it can be (a deleted child was resurrected).
            let staleParked = try StaleParkedRows(schema, db)
            var versions = VersionWriter(schema)
            for change in response.results {
                let key = RowKey(table: change.table, id: change.id.databaseValue)
                try staleParked.drop(key, upTo: change.current.version)
                if !change.applied, let table = self.table(named: change.table) {
                    result.refused += 1
                    // The server's row: its tombstone (delete wins, or a refused insert of a row
                    // it never had), or the row it kept, with its columns, when a rule refused.
                    let live = !change.current.deleted && change.current.columns != nil
                    try rows.write(SyncRow(table: change.table, id: change.id, version: change.current.version, deleted: !live,
                                           columns: live ? change.current.columns : nil),
                                   table: table, db)
                    refusedKeys.append(key)
                    if let reason = change.reason { try self.listRefusal(change, reason: reason, db) }
                }
                if change.applied, !change.current.deleted, !otherMarks.isEmpty, let table = self.table(named: change.table), table.spaceColumn != nil {
                    try self.requeueIfMovedAway(key, table: table, db)
                }
                if change.current.deleted, let table = self.table(named: change.table), table.spaceColumn != nil, try self.holds(key, table: table, db) {
                    // The row left this space as a deletion and is still here: it names another
                    // space now, and this space knows it no more (its later changes are not
                    // pushed here again); or it came back while the deletion was in flight,
                    // and the space's tombstone gets it whole again, as an insertion.
                    try self.forgetVersion(of: key, db)
                } else {
                    try versions.record(key, change.current.version, db)
                }
            }
            try versions.flush(db)
            // An update the server merged into a row that changed since the update's base
            // comes back with the row's columns: the other devices' columns are
            // taken (not those a local change still has to push), since the row's version is
            // now this client's own and no pull brings it.
            var merged = false
            for change in response.results where change.applied && !change.current.deleted {
                guard let columns = change.current.columns, let table = self.table(named: change.table) else { continue }
                let row = SyncRow(table: change.table, id: change.id, version: change.current.version, deleted: false, columns: columns)
                if try self.writeServerColumns(row, table: table, db) { merged = true }
            }
            // Rows left without their parent by a refused change's deletion are deleted too
            // (and pushed); no echo: what the refused rows themselves wrote to the outbox.
            _ = try self.resolveForeignKeys(touched: [:], db).parked
            try self.removeEcho(of: refusedKeys, after: mark, andFrom: otherMarks, db)
            // The server's rows taken for refused changes: a following store sees a sync engine's change.
            if !refusedKeys.isEmpty || merged { try ChangeJournal.markOrigin(ChangeJournal.syncOrigin, after: journalMark, db) }
            if response.acknowledged == nil, response.results.count < expected {
                try schema.setValue("cursor", 0, db)
            }
            return result
        }
    }
}
