import GRDB

/// Setting aside the writes that can never succeed: rows a flush wrote whose parent row is
/// gone (another writer deleted it; `undo()` re-inserted a child of a deleted parent).
///
/// Foreign keys are checked at the commit (`PRAGMA defer_foreign_keys = ON`). When the
/// commit of a flush fails on a foreign key, the flush runs again in a fresh transaction
/// that, before committing, asks `PRAGMA foreign_key_check` which of the rows it wrote
/// (through ``SwiduxDatabase/stateWriter(for:table:)``) have no parent: it rolls back and
/// runs again without them — an orphan's row is deleted instead, as a cascade would have
/// removed it — until no row it wrote dangles. The set-aside ids come back in
/// `WriteResult.orphaned`: the middleware takes those entities out of the store without
/// writing back and reports them to `onVanished`. Everything else of the flush is saved.
///
/// A dangling reference the flush did not write (the store deleted a parent that still has
/// children under `ON DELETE NO ACTION`) is not set aside: the flush fails as before.
final class FlushAttempt: @unchecked Sendable {
    /// The attempt whose operations are running on this thread (bound synchronously around
    /// them, inside the write transaction).
    @TaskLocal static var current: FlushAttempt?

    /// Rows to set aside: table name → ids.
    let setAside: [String: Set<DatabaseValue>]
    /// Whether to look for orphaned rows before the commit (after a foreign-key failure).
    let diagnosing: Bool
    /// Whether the writers note what they wrote: when diagnosing, or when a feed follows
    /// the database (the journal tells own rows from others' by the notes).
    private(set) var noting = false
    /// What each writer's batch did in this attempt: the one record of a flush's rows, read
    /// by the orphan check and by the journal. Only touched on the transaction's thread.
    private(set) var notes: [FlushNote] = []

    init(setAside: [String: Set<DatabaseValue>], diagnosing: Bool) {
        self.setAside = setAside
        self.diagnosing = diagnosing
    }

    /// Runs the flush's operations, noting what they write when diagnosing or when
    /// `journaled`; when diagnosing, throws ``OrphanedRows`` (rolling the transaction back)
    /// if rows they wrote reference missing parents.
    func run(_ operations: [@Sendable (Database) throws -> Void], in db: Database, noting journaled: Bool) throws {
        noting = diagnosing || journaled
        notes = []
        try Self.$current.withValue(self) {
            for operation in operations { try operation(db) }
        }
        guard diagnosing else { return }
        let orphans = try orphanedRows(db)
        if !orphans.isEmpty { throw OrphanedRows(byTable: orphans) }
    }

    /// Notes what a writer's batch did, when the attempt notes.
    func note(_ note: @autoclosure () -> FlushNote) {
        guard noting else { return }
        notes.append(note())
    }

    /// The rows this attempt wrote that violate a foreign key, by table.
    private func orphanedRows(_ db: Database) throws -> [String: Set<DatabaseValue>] {
        var written: [String: (idColumn: String, ids: Set<DatabaseValue>)] = [:]
        for note in notes where !note.written.isEmpty {
            written[note.table, default: (note.idColumn, [])].ids.formUnion(note.written)
        }
        var found: [String: Set<DatabaseValue>] = [:]
        for (table, entry) in written {
            let violations = try Row.fetchAll(db, sql: "PRAGMA foreign_key_check(\(table.sqlIdentifier))")
            guard !violations.isEmpty else { continue }
            let idOf = try db.cachedStatement(
                sql: "SELECT \(entry.idColumn.sqlIdentifier) FROM \(table.sqlIdentifier) WHERE rowid = ?")
            for violation in violations {
                // (table, rowid, parent, fkid); rowid is NULL for a WITHOUT ROWID table.
                guard let rowid = violation[1] as Int64?,
                      let id = try DatabaseValue.fetchOne(idOf, arguments: [rowid]),
                      entry.ids.contains(id) else { continue }
                found[table, default: []].insert(id)
            }
        }
        return found
    }
}

/// Thrown inside a diagnosing attempt: these rows it wrote have no parent.
struct OrphanedRows: Error {
    let byTable: [String: Set<DatabaseValue>]
}

extension SwiduxDatabase {
    /// Runs `body` (one flush transaction, running its operations through
    /// ``FlushAttempt/run(_:in:)``) until it commits without orphaned rows: after a
    /// foreign-key failure at the commit, again diagnosing, then without the orphans found.
    /// Any other failure, or a foreign-key failure no set-aside fixes, is thrown.
    func settingAsideOrphans(_ body: (FlushAttempt) async throws -> Void) async throws {
        var setAside: [String: Set<DatabaseValue>] = [:]
        var diagnosing = false
        // Each round sets aside at least one more row; a bound in case of a surprise.
        for _ in 0..<64 {
            do {
                try await body(FlushAttempt(setAside: setAside, diagnosing: diagnosing))
                return
            } catch let orphans as OrphanedRows {
                for (table, ids) in orphans.byTable { setAside[table, default: []].formUnion(ids) }
            } catch let error as DatabaseError where error.extendedResultCode == .SQLITE_CONSTRAINT_FOREIGNKEY && !diagnosing {
                diagnosing = true
            }
        }
        try await body(FlushAttempt(setAside: setAside, diagnosing: false))
    }
}

extension EntityTable {
    /// ``write(_:in:)`` within a flush of ``SwiduxDatabase/performAtomically(_:)``: writes
    /// set aside as orphans (see ``FlushAttempt``) become deletions of their rows and come
    /// back in `WriteResult.orphaned`.
    @usableFromInline
    func writeSettingAsideOrphans(_ batch: WriteBatch<Entity>, in db: Database, by token: JournalWriterToken) throws -> WriteResult<Entity.ID> {
        guard let attempt = FlushAttempt.current else { return try write(batch, in: db) }
        var batch = batch
        var orphaned: [Entity.ID] = []
        if let aside = attempt.setAside[name], !aside.isEmpty {
            var kept: [Entity] = []
            kept.reserveCapacity(batch.writes.count)
            for entity in batch.writes {
                if aside.contains(entity.id.databaseValue) { orphaned.append(entity.id) } else { kept.append(entity) }
            }
            if !orphaned.isEmpty {
                let gone = Set(orphaned)
                batch.writes = kept
                batch.insertions.subtract(gone)
                batch.deletions.append(contentsOf: orphaned)
                batch.order = batch.order?.filter { !gone.contains($0) }
            }
        }
        var result = try write(batch, in: db)
        attempt.note(FlushNote(batch, table: self, by: token))
        if !orphaned.isEmpty {
            let gone = Set(orphaned)
            result.vanished.removeAll { gone.contains($0) }
            result.orphaned = orphaned
        }
        return result
    }
}
