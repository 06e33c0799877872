import Foundation
import GRDB
import SwiduxSQLite
import GRDBSQLite
import SwiduxSyncWire

/// What applying one pulled page did.
struct PageResult: Equatable {
    /// Rows written (page rows and parked rows that could be applied now).
    var applied = 0
    /// Page rows skipped because a local change of the same row is not acknowledged yet.
    var skipped = 0
    /// Rows parked by this page (their parent is missing).
    var parked = 0
}

extension SyncEngine {
    /// Applies one pulled page and stores its cursor, in one local transaction:
    ///
    /// - a row whose version is the one recorded for it is skipped (this client's own push
    ///   coming back: not counted as pulled);
    /// - a row with an outbox entry is skipped (the local change stays on top; it is pushed
    ///   later and wins in server order) — the caller guarantees no push ran meanwhile;
    /// - other rows are upserted or deleted and their version recorded; a parked row of the
    ///   same id with an older version is dropped;
    /// - parked rows are tried again;
    /// - foreign keys are checked before the commit: rows of this page (or parked ones)
    ///   whose parent is missing are removed again and parked; a local row left without
    ///   its parent by a pulled deletion is deleted (and that deletion pushed);
    /// - no echo: the outbox entries the applied rows themselves caused are deleted, those
    ///   of other rows (cascades) stay and are pushed.
    ///
    /// `cursor`, when given and past the page's, is stored instead: the page reached a range
    /// of versions that are all this client's own (see ``SyncClient``), skipped without
    /// pulling them.
    func apply(_ page: PullResponse, cursor: Int64? = nil) throws -> PageResult {
        try writer.write { db in
            try db.execute(sql: "PRAGMA defer_foreign_keys = ON")
            try schema.ensureOutboxIndex(db)
            let mark = try schema.lastOutboxSequence(db)
            let otherMarks = try self.otherOutboxes(db)
            let journalMark = try ChangeJournal.lastSequence(db)
            var result = PageResult()
            var rows = RowWriter()
            var clashes = UniqueClashes()
            var touched: [RowKey: SyncRow] = [:]   // rows written by this transaction
            var order: [RowKey] = []
            let staleParked = try StaleParkedRows(schema, db)
            // A row is the echo of a version already here only when one past the stored cursor
            // is recorded (``anyVersion(after:_:)``). Without one (a first pull), a
            // row's version can only be one this transaction recorded: no look-up per row (a
            // page holds each id once). A small page looks up its rows rather than scan.
            let storedCursor = Int64.fromDatabaseValue(try schema.value("cursor", db)) ?? 0
            let lookUpVersions = try page.rows.count < 256 ? self.anyVersion(db) : self.anyVersion(after: storedCursor, db)
            var versions = VersionWriter(schema)
            // A row's outbox entry can only come from before, or from a cascade of a deletion
            // of this page: without either, no row needs the look-up.
            let anyOutbox = try page.rows.contains(where: \.deleted)
                || SyncSchema.hasRows(schema.outbox, db)
            touched.reserveCapacity(page.rows.count)
            order.reserveCapacity(page.rows.count)
            func written(_ row: SyncRow, _ key: RowKey) throws {
                try versions.record(key, row.version, db)
                if touched[key] == nil { order.append(key) }
                touched[key] = row
                result.applied += 1
            }
            func write(_ row: SyncRow, _ key: RowKey, _ table: SyncTable) throws {
                if try rows.tryWrite(row, table: table, db)
                    || self.writeResolvingClash(row, table: table, rows: &rows, clashes: &clashes, touched: touched, db) {
                    try written(row, key)
                } else {
                    try self.park(row, db)
                    result.parked += 1
                }
            }
            // Live rows of one table and one set of columns, written many per statement
            // (SQLite then sets up the triggers and counters once per statement, not per row).
            // Only while no row needs its outbox looked up: a row's look-up must see what the
            // rows before it wrote.
            var batch: [SyncRow] = [], batchKeys: [RowKey] = [], inBatch = Set<RowKey>()
            func writeBatch() throws {
                guard let first = batch.first, let table = self.table(named: first.table) else { return }
                // The server's rows as they are: no outbox entry to write and delete again.
                let count = try SyncSchema.applying(table.name, db) { try rows.tryWrite(batch[...], table: table, db) }
                for (index, row) in batch.enumerated() {
                    // Past `count`: the statement a constraint refused wrote nothing; row by row.
                    if index < count { try written(row, batchKeys[index]) } else { try write(row, batchKeys[index], table) }
                }
                batch.removeAll(keepingCapacity: true)
                batchKeys.removeAll(keepingCapacity: true)
                inBatch.removeAll(keepingCapacity: true)
            }
            for row in page.rows {
                guard let table = self.table(named: row.table) else { continue }
                let key = RowKey(table: row.table, id: row.id.databaseValue)
                // The same id twice: the first is written before the second is looked at.
                if !inBatch.isEmpty, inBatch.contains(key) { try writeBatch() }
                try staleParked.drop(key, upTo: row.version)
                // A version this transaction wrote is the row's (recorded versions are written
                // in batches: not read back before the end of the page).
                if try (touched[key]?.version ?? (lookUpVersions ? self.baseVersion(key, db) : nil)) == row.version {
                    // Already this version: the echo of this client's own push.
                    continue
                }
                if anyOutbox, try self.hasOutboxEntry(key, db) {
                    result.skipped += 1
                    continue
                }
                if row.deleted, try !self.appliesDeletion(of: key, table: table, db) {
                    // The row moved to another space: this space's deletion is that move's, and
                    // the row is this space's no more (its later changes are not pushed here).
                    try self.forgetVersion(of: key, db)
                    continue
                }
                if !row.deleted, !otherMarks.isEmpty, table.spaceColumn != nil, try self.isNewerElsewhere(key, table: table, than: row.version, db) {
                    // The row moved here from this space, after this version (versions come from
                    // one sequence for every space): this space's deletion of it is still to come.
                    try self.forgetVersion(of: key, db)
                    result.skipped += 1
                    continue
                }
                if anyOutbox || row.deleted {
                    try writeBatch()
                    try write(row, key, table)
                    continue
                }
                if let first = batch.first, !RowWriter.canShareStatement(row, with: first) || batch.count >= 4 * RowWriter.rowsPerStatement {
                    try writeBatch()
                }
                batch.append(row)
                batchKeys.append(key)
                inBatch.insert(key)
            }
            try writeBatch()
            try versions.flush(db)
            // Parked rows: their parent may be here now.
            let parked = staleParked.anyParked || result.parked > 0
                ? try Row.fetchAll(db, sql: "SELECT tbl, rid, payload FROM \(schema.parked) ORDER BY version") : []
            for entry in parked {
                let key = RowKey(table: entry[0], id: entry[1])
                guard touched[key] == nil, let table = self.table(named: key.table) else { continue }
                let row = try JSONDecoder().decode(SyncRow.self, from: entry[2] as Data)
                if try self.hasOutboxEntry(key, db) {
                    // A local change of that row is on top and will be pushed.
                    try db.execute(sql: "DELETE FROM \(schema.parked) WHERE tbl = ? AND rid = ?", arguments: [key.table, key.id])
                    continue
                }
                // A row parked because a unique index refused it is resolved now too.
                if try rows.tryWrite(row, table: table, db)
                    || self.writeResolvingClash(row, table: table, rows: &rows, clashes: &clashes, touched: touched, db) {
                    try db.execute(sql: "DELETE FROM \(schema.parked) WHERE tbl = ? AND rid = ?", arguments: [key.table, key.id])
                    try versions.record(key, row.version, db)
                    order.append(key)
                    touched[key] = row
                    result.applied += 1
                }
            }
            try versions.flush(db)
            let resolved = try self.resolveForeignKeys(touched: touched, db)
            result.parked += resolved.parked
            result.applied -= resolved.parked + resolved.orphaned.count
            // An orphan's deletion is pushed (its insertion and deletion fold into a delete).
            let echoed = resolved.orphaned.isEmpty ? order : order.filter { !resolved.orphaned.contains($0) }
            try self.removeEcho(of: echoed, after: mark, andFrom: otherMarks, db)
            // Renames of rows a unique index refused: pushed like edits, so queued after the echo is gone.
            if !clashes.renamed.isEmpty {
                try clashes.finish(clientID: String.fromDatabaseValue(try schema.value("clientID", db)) ?? "", outbox: schema.outbox, db)
            }
            // A store following the file takes these rows in as a sync engine's.
            try ChangeJournal.markOrigin(ChangeJournal.syncOrigin, after: journalMark, db)
            try schema.setValue("cursor", max(page.cursor, cursor ?? page.cursor), db)
            if let scope = page.scope, try schema.value("scope", db).isNull {
                // The first answer with a scope: the cursor belongs to it from now on.
                try schema.setValue("scope", scope, db)
            }
            if page.conflicts != nil { try self.noteServerMerges(db) }
            return result
        }
    }

    func park(_ row: SyncRow, _ db: Database) throws {
        try db.execute(sql: "INSERT OR REPLACE INTO \(schema.parked) (tbl, rid, version, payload) VALUES (?, ?, ?, ?)",
                       arguments: [row.table, row.id.databaseValue, row.version, try JSONEncoder().encode(row)])
    }

    /// Before the commit: every row violating a foreign key is either a row this
    /// transaction wrote (removed again and parked until its parent comes) or a local row
    /// whose parent this transaction deleted (deleted, like a cascade; the deletion is pushed).
    ///
    /// A written row whose parent this client knows to be deleted (it has a version of the
    /// parent, and the parent is gone) is an orphan the server kept (written by a client
    /// that had not seen the deletion yet, and never cascaded: a copied, restored or
    /// re-spaced file): it is deleted like a cascade and the deletion is pushed, so every
    /// client drops it, instead of all of them parking it forever while the server holds it.
    ///
    /// Returns how many written rows were parked, and the orphans deleted.
    func resolveForeignKeys(touched: [RowKey: SyncRow], _ db: Database) throws -> (parked: Int, orphaned: Set<RowKey>) {
        var parked = 0
        var orphaned = Set<RowKey>()
        // No foreign key left unresolved by this transaction: nothing to check (the
        // check reads every row of every table, once per pulled page).
        guard try hasUnresolvedForeignKeys(db) else { return (0, []) }
        for _ in 0..<100 {
            let violations = try Row.fetchAll(db, sql: "PRAGMA foreign_key_check")
            if violations.isEmpty { return (parked, orphaned) }
            var handled = Set<RowKey>()
            for violation in violations {
                let tableName: String = violation[0]
                guard let table = tables.first(where: { $0.name.lowercased() == tableName.lowercased() }),
                      let rowid = violation[1] as Int64? else {
                    throw SyncError.local(SyncSetupError(message: "a foreign key of table \"\(tableName)\" is violated and it is not a synced table with a rowid"))
                }
                let name = table.name.sqlIdentifier
                guard let id = try DatabaseValue.fetchOne(db, sql: "SELECT \(table.idColumn.sqlIdentifier) FROM \(name) WHERE rowid = ?", arguments: [rowid]) else { continue }
                let key = RowKey(table: table.name, id: id)
                guard handled.insert(key).inserted else { continue }
                let orphan = try touched[key] != nil
                    && parentKnownDeleted(table: table, rowid: rowid, parentTable: violation[2], foreignKey: violation[3], db)
                try db.execute(sql: "DELETE FROM \(name) WHERE rowid = ?", arguments: [rowid])
                if let row = touched[key], !row.deleted {
                    if orphan {
                        orphaned.insert(key)
                    } else {
                        try park(row, db)
                        parked += 1
                    }
                }
            }
        }
        throw SyncError.local(SyncSetupError(message: "foreign keys still violated after removing the rows without a parent"))
    }

    /// `true` when the parent the row at `rowid` of `table` misses through foreign key
    /// `foreignKey` (an id of `PRAGMA foreign_key_list`) is a synced row this client knows
    /// (it holds a version of it) and that is gone: deleted, not yet to come.
    func parentKnownDeleted(table: SyncTable, rowid: Int64, parentTable: String?, foreignKey: Int64?, _ db: Database) throws -> Bool {
        guard let parentTable, let foreignKey,
              let parent = tables.first(where: { $0.name.lowercased() == parentTable.lowercased() })
        else { return false }
        let columns = try Row.fetchAll(db, sql: "PRAGMA foreign_key_list(\(table.name.sqlIdentifier))")
            .filter { ($0["id"] as Int64?) == foreignKey }
        // One column, referring to the parent's id (or to its primary key, unnamed).
        guard columns.count == 1, let from: String = columns[0]["from"] else { return false }
        let to: String? = columns[0]["to"]
        guard to == nil || to?.lowercased() == parent.idColumn.lowercased() else { return false }
        guard let value = try DatabaseValue.fetchOne(
            db, sql: "SELECT \(from.sqlIdentifier) FROM \(table.name.sqlIdentifier) WHERE rowid = ?", arguments: [rowid]),
            !value.isNull
        else { return false }
        return try baseVersion(RowKey(table: parent.name, id: value), db) != nil
    }

    /// `true` when a foreign key written by this transaction is not satisfied (SQLite counts
    /// them while foreign keys are deferred); `true` as well when SQLite cannot tell.
    func hasUnresolvedForeignKeys(_ db: Database) throws -> Bool {
        // SQLite counts them only while foreign keys are enforced.
        guard db.configuration.foreignKeysEnabled, let connection = db.sqliteConnection else { return true }
        var current: Int32 = 0, highest: Int32 = 0
        guard sqlite3_db_status(connection, SQLITE_DBSTATUS_DEFERRED_FKS, &current, &highest, 0) == SQLITE_OK else { return true }
        return current != 0
    }

    /// Deletes the outbox entries written after `mark` for exactly `keys`, and those written
    /// after each of `others`' marks in the other spaces' outbox: their engines were fed the
    /// same writes (a row they know too), which are not their changes either.
    func removeEcho(of keys: [RowKey], after mark: Int64, andFrom others: [(outbox: String, mark: Int64)] = [],
                    _ db: Database) throws {
        try removeEcho(of: keys, after: mark, outbox: schema.outbox, db)
        for other in others { try removeEcho(of: keys, after: other.mark, outbox: other.outbox, db) }
    }

    private func removeEcho(of keys: [RowKey], after mark: Int64, outbox: String, _ db: Database) throws {
        guard !keys.isEmpty else { return }
        // Usually every entry after `mark` is one of `keys`: one statement deletes them all.
        let wanted = Set(keys)
        var others = false
        let entries = try Row.fetchCursor(db, sql: "SELECT tbl, rid FROM \(outbox) WHERE seq > ?", arguments: [mark])
        while let entry = try entries.next() {
            if !wanted.contains(RowKey(table: entry[0], id: entry[1])) {
                others = true
                break
            }
        }
        if !others {
            try db.execute(sql: "DELETE FROM \(outbox) WHERE seq > ?", arguments: [mark])
            return
        }
        let delete = try db.cachedStatement(sql: "DELETE FROM \(outbox) WHERE seq > ? AND tbl = ? AND rid = ?")
        for key in keys { try delete.execute(arguments: [mark, key.table, key.id]) }
    }
}
