import Foundation
import GRDB
import SwiduxSyncWire

/// A local change that is not sent because it is too large for the server:
/// it stays in the local database and is reported until the row changes again.
///
/// ```swift
/// for change in report.setAside { print("\(change.table) \(change.id) is \(change.bytes) bytes, too large to sync") }
/// ```
public struct SetAsideChange: Hashable, Sendable, CustomStringConvertible {
    /// The row's table.
    public var table: String
    /// The row's id.
    public var id: SyncValue
    /// The encoded change's size in bytes.
    public var bytes: Int

    /// A set-aside change.
    ///
    /// ```swift
    /// SetAsideChange(table: "item", id: .text("6F1…"), bytes: 17_000_000)
    /// ```
    public init(table: String, id: SyncValue, bytes: Int) {
        self.table = table
        self.id = id
        self.bytes = bytes
    }

    /// "item 6F1… (17000000 bytes)"; for an id longer than the server stores, "item t:…
    /// (its id has 3000 bytes, over SyncProtocol.maxKeyBytes: 1024)".
    ///
    /// ```swift
    /// print(change)
    /// ```
    public var description: String {
        let idBytes = SyncProtocol.keyBytes(of: id)
        if idBytes > SyncProtocol.maxKeyBytes {
            return "\(table) \(id.key.prefix(40))… (its id has \(idBytes) bytes, over SyncProtocol.maxKeyBytes: \(SyncProtocol.maxKeyBytes))"
        }
        return "\(table) \(id.key) (\(bytes) bytes)"
    }
}

extension SyncEngine {
    /// The scope (server database and space) the cursor, the versions and the client id
    /// belong to; `nil` before the first answer that carried one.
    func scope() throws -> String? {
        try writer.read { db in String.fromDatabaseValue(try schema.value("scope", db)) }
    }

    /// The rows set aside as too large to send.
    func setAsideChanges() throws -> [SetAsideChange] {
        try writer.read { db in
            try Row.fetchAll(db, sql: "SELECT tbl, rid, bytes FROM \(SyncSchema.setAside) ORDER BY tbl, rid").map {
                SetAsideChange(table: $0[0], id: SyncValue($0[1] as DatabaseValue), bytes: $0[2])
            }
        }
    }

    /// Sets a row's change aside: its outbox entries up to `mark` are removed (the row stays
    /// as it is locally) and it is listed until it changes again.
    func setAside(_ key: RowKey, bytes: Int, through mark: Int64, _ db: Database) throws {
        try db.execute(sql: "DELETE FROM \(schema.outbox) WHERE seq <= ? AND tbl = ? AND rid = ?",
                       arguments: [mark, key.table, key.id])
        try db.execute(sql: "INSERT OR REPLACE INTO \(SyncSchema.setAside) (tbl, rid, bytes) VALUES (?, ?, ?)",
                       arguments: [key.table, key.id, bytes])
    }

    /// After the server refused `mutation` as too large (413): its largest change is set
    /// aside and the mutation dropped, so that the next push rebuilds the others from the
    /// outbox (its id is never used again).
    func setAsideLargest(of mutation: PendingMutation) throws {
        let decoded = try mutation.decoded()
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        var largest: (change: SyncChange, bytes: Int)?
        for change in decoded.changes {
            let bytes = try encoder.encode(change).count
            if bytes > largest?.bytes ?? -1 { largest = (change, bytes) }
        }
        try writer.write { db in
            if let largest {
                try self.setAside(RowKey(table: largest.change.table, id: largest.change.id.databaseValue), bytes: largest.bytes,
                                  through: mutation.throughSequence, db)
            }
            try db.execute(sql: "DELETE FROM \(schema.pending) WHERE id = ?", arguments: [mutation.id])
        }
    }

    /// After a 409 ``SyncErrorBody/Code/mutationConflict`` (this file's client id and
    /// mutation ids are also another file's: a copy, or a restored backup): a new client id,
    /// and the pending mutations renumbered from 1 under it — one local transaction. Nothing
    /// pending is dropped; the next push sends it all again.
    func reidentify() throws {
        try writer.write { db in
            try schema.setValue("clientID", UUID().uuidString.lowercased(), db)
            let encoder = JSONEncoder()
            encoder.outputFormatting = .sortedKeys
            let stored = try self.storedPending(db)
            try db.execute(sql: "DELETE FROM \(schema.pending)")
            var next: Int64 = 1
            for mutation in stored {
                var decoded = try mutation.decoded()
                decoded.id = next
                try db.execute(sql: "INSERT INTO \(schema.pending) (id, payload, through_seq) VALUES (?, ?, ?)",
                               arguments: [next, try encoder.encode(decoded), mutation.throughSequence])
                next += 1
            }
            try schema.setValue("nextMutation", next, db)
        }
    }

    /// After the scope changed (another space's token, a replaced server database): a first
    /// sync — a new client id, the cursor at 0, no versions, nothing parked or pending, every
    /// local row queued as an insert (local deletions not pushed yet stay queued) and the
    /// scope forgotten until the next answer. One local transaction.
    func rebase() throws {
        try writer.write { db in
            try schema.setValue("clientID", UUID().uuidString.lowercased(), db)
            try schema.setValue("cursor", 0, db)
            // Another server: its conflict ids, and whether it merges by column, are its own.
            try db.execute(sql: "DELETE FROM \(schema.state) WHERE key IN ('scope', 'conflictCursor', 'merges')")
            try db.execute(sql: "DELETE FROM \(schema.version)")
            try db.execute(sql: "DELETE FROM \(schema.parked)")
            try db.execute(sql: "DELETE FROM \(schema.pending)")
            // Only this space's rows: the others are their own spaces' to push.
            for table in self.tables {
                guard let here = schema.rowsHere(of: table) else { continue }
                try db.execute(sql: """
                    INSERT INTO \(schema.outbox) (tbl, rid, op)
                    SELECT ?, \(table.idColumn.sqlIdentifier), 'I' FROM \(table.name.sqlIdentifier) WHERE \(here) ORDER BY rowid
                    """, arguments: [table.name])
            }
        }
    }

    /// The cursor is past the server's end (a corrupted file, a server restored from an
    /// older backup): pull everything again. Rows with a local change stay on top.
    func resetCursor() throws {
        try writer.write { db in try schema.setValue("cursor", 0, db) }
    }
}
