import Foundation
import GRDB
import SwiduxSQLite
import SwiduxSyncWire

/// A value of this device that another device's later push replaced without having seen
/// it: both changed the same column of the same row since the version the later push was
/// based on. The later push (in the server's order) won; the replaced value is kept here,
/// listed by ``SyncClient/conflicts()``, until dismissed (`SyncClient.dismiss(_:)`).
///
/// ```swift
/// for conflict in try await client.conflicts() {
///     print("\(conflict.table) \(conflict.id.key) \(conflict.column): yours \(conflict.replaced), kept \(conflict.kept)")
/// }
/// ```
///
/// To take the replaced value back, write it as an ordinary edit (it syncs like any other),
/// then dismiss the conflict.
///
/// A conflict of kind `.renamed` is a row this device renamed because a
/// unique index of its table held the same values in another device's row
/// (``SyncUniqueClash``): ``replaced`` is the old value of ``column``, ``kept`` the new one.
///
/// A conflict of kind `.refused` is a change of this device that a rule of the server
/// refused (a reader's change, or one its operator's rules do not allow): ``reason`` says
/// why, the row went back to the server's (a refused new row was deleted), ``column`` is
/// empty and ``kept`` and ``replaced`` are `null`.
public struct SyncConflict: Hashable, Sendable, CustomStringConvertible {
    /// What happened to the value.
    ///
    /// ```swift
    /// if conflict.kind == .renamed { print("renamed to \(conflict.kept)") }
    /// ```
    public enum Kind: String, Hashable, Sendable {
        /// Another device's later push replaced this device's value.
        case replaced
        /// This device renamed the row: another device's row held the same values in a
        /// unique index (the later of the two rows in the server's order is renamed).
        case renamed
        /// The server refused this device's change of the row (``reason``); the row is the
        /// server's again.
        case refused
    }

    /// The server's number for the conflict: increasing, unique per server database. Below
    /// zero for a rename (`.renamed`) or a refusal (`.refused`), numbered by this device.
    public var serial: Int64
    /// The row's table.
    public var table: String
    /// The row's id.
    public var id: SyncValue
    /// The column both devices changed.
    public var column: String
    /// The value the server kept (the later push's, now in the row).
    public var kept: SyncValue
    /// This device's value, which the later push replaced.
    public var replaced: SyncValue
    /// When the server recorded it.
    public var at: Date
    /// The row's version the later push wrote.
    public var version: Int64
    /// The version this device's replaced value had been written at.
    public var replacedVersion: Int64
    /// The client id of the device whose push won (for a rename, this device's).
    public var keptBy: String
    /// A replaced value, a rename, or a refusal.
    public var kind: Kind
    /// Why the server refused the change (`.refused`); `nil` otherwise.
    public var reason: String?

    /// A conflict.
    ///
    /// ```swift
    /// SyncConflict(serial: 1, table: "item", id: .text("6F1…"), column: "title", kept: .text("call mum on Sunday"),
    ///              replaced: .text("call mum at 6"), at: Date(), version: 9, replacedVersion: 8, keptBy: "…")
    /// ```
    public init(serial: Int64, table: String, id: SyncValue, column: String, kept: SyncValue, replaced: SyncValue, at: Date,
                version: Int64, replacedVersion: Int64, keptBy: String, kind: Kind = .replaced, reason: String? = nil) {
        self.serial = serial
        self.table = table
        self.id = id
        self.column = column
        self.kept = kept
        self.replaced = replaced
        self.at = at
        self.version = version
        self.replacedVersion = replacedVersion
        self.keptBy = keptBy
        self.kind = kind
        self.reason = reason
    }

    /// "item t:6F1… title: kept "b", replaced "a"", for a rename "list t:9A2… name: renamed
    /// "Shopping" to "Shopping (2)" (another device's row had it)", for a refusal "item t:6F1…
    /// refused: a title has 1 to 500 characters".
    ///
    /// ```swift
    /// print(conflict)
    /// ```
    public var description: String {
        switch kind {
        case .replaced:
            "\(table) \(id.key) \(column): kept \(Self.describe(kept)), replaced \(Self.describe(replaced))"
        case .renamed:
            "\(table) \(id.key) \(column): renamed \(Self.describe(replaced)) to \(Self.describe(kept)) (another device's row had it)"
        case .refused:
            "\(table) \(id.key) refused: \(reason ?? "no reason given")"
        }
    }

    private static func describe(_ value: SyncValue) -> String {
        switch value {
        case .null: "null"
        case .integer(let integer): String(integer)
        case .real(let real): String(real)
        case .text(let text): "\"\(text)\""
        case .blob(let data): "<\(data.count) bytes>"
        }
    }
}

/// What a conflict resolver (``SyncClient/setResolver(for:_:)``) is given for one column.
///
/// ```swift
/// await client.setResolver(for: "item") { merge in
///     merge.column == "title" ? .text("\(merge.mine) / \(merge.theirs)") : nil
/// }
/// ```
public struct SyncMerge: Hashable, Sendable {
    /// The conflict.
    public var conflict: SyncConflict
    /// The column.
    public var column: String { conflict.column }
    /// The value both devices started from, when known (`nil`: the server keeps no history;
    /// it is not known in this version).
    public var base: SyncValue?
    /// This device's value (the one the later push replaced).
    public var mine: SyncValue { conflict.replaced }
    /// The other device's value (the one the server kept).
    public var theirs: SyncValue { conflict.kept }

    /// A merge's input.
    ///
    /// ```swift
    /// SyncMerge(conflict: conflict, base: nil)
    /// ```
    public init(conflict: SyncConflict, base: SyncValue? = nil) {
        self.conflict = conflict
        self.base = base
    }
}

/// Resolves a conflicting column: the value to keep — written to the local row and pushed as
/// an ordinary change when it is not the row's value already — or `nil` to leave the
/// conflict listed (the default: the later push wins, the replaced value stays listed).
public typealias SyncConflictResolver = @Sendable (SyncMerge) -> SyncValue?

extension SyncEngine {
    /// The conflicts not dismissed, oldest first.
    func openConflicts() throws -> [SyncConflict] {
        try writer.read { db in try Self.conflicts(db, sql: "SELECT * FROM \(SyncSchema.conflicts) ORDER BY id") }
    }

    static func conflicts(_ db: Database, sql: String = "SELECT * FROM \(SyncSchema.conflicts) ORDER BY id",
                          arguments: StatementArguments = []) throws -> [SyncConflict] {
        try Row.fetchAll(db, sql: sql, arguments: arguments).map { row in
            SyncConflict(serial: row["id"], table: row["tbl"], id: SyncValue(row["rid"] as DatabaseValue), column: row["col"],
                         kept: SyncValue(row["kept"] as DatabaseValue), replaced: SyncValue(row["replaced"] as DatabaseValue),
                         at: Date(timeIntervalSince1970: Double(row["at"] as Int64) / 1000),
                         version: row["version"], replacedVersion: row["replaced_version"], keptBy: row["kept_by"],
                         kind: (row["kind"] as String?).flatMap(SyncConflict.Kind.init(rawValue:)) ?? .replaced,
                         reason: row["reason"])
        }
    }

    /// Forgets conflicts; returns how many were open.
    @discardableResult
    func dismiss(_ serials: [Int64]) throws -> Int {
        guard !serials.isEmpty else { return 0 }
        return try writer.write { db in
            var count = 0
            for serial in serials {
                try db.execute(sql: "DELETE FROM \(SyncSchema.conflicts) WHERE id = ?", arguments: [serial])
                count += db.changesCount
            }
            return count
        }
    }

    /// The renames and refusals (conflicts of kind `.renamed`, `.refused`: numbered by this
    /// device) listed since the last call and still open, oldest first; they count as
    /// reported from now on.
    func takeNewRenames() throws -> [SyncConflict] {
        // Read first: every sync round asks, and almost never is there one (no write transaction then).
        let unannounced = try writer.read { db in
            (Int64.fromDatabaseValue(try SyncSchema.main.value("renames", db)) ?? 0)
                > (Int64.fromDatabaseValue(try SyncSchema.main.value("renamesAnnounced", db)) ?? 0)
        }
        guard unannounced else { return [] }
        return try writer.write { db in
            let count = Int64.fromDatabaseValue(try SyncSchema.main.value("renames", db)) ?? 0
            let announced = Int64.fromDatabaseValue(try SyncSchema.main.value("renamesAnnounced", db)) ?? 0
            guard count > announced else { return [] }
            try SyncSchema.main.setValue("renamesAnnounced", count, db)
            return try Self.conflicts(db, sql: "SELECT * FROM \(SyncSchema.conflicts) WHERE id BETWEEN ? AND ? ORDER BY id DESC",
                                      arguments: [-count, -(announced + 1)])
        }
    }

    /// The last conflict id fetched from the server.
    func conflictCursor() throws -> Int64 {
        try writer.read { db in Int64.fromDatabaseValue(try schema.value("conflictCursor", db)) ?? 0 }
    }

    /// Stores a fetched page of this client's conflicts (those of synced tables) and its
    /// cursor (`through`, when larger: every conflict up to it was asked for); returns the
    /// conflicts stored, not already known.
    func store(_ page: ConflictsResponse, through: Int64) throws -> [SyncConflict] {
        try writer.write { db in
            var stored: [SyncConflict] = []
            for record in page.conflicts where self.table(named: record.table) != nil {
                try db.execute(sql: """
                    INSERT OR IGNORE INTO \(SyncSchema.conflicts) (id, tbl, rid, col, kept, replaced, version, replaced_version, kept_by, at)
                    VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                    """, arguments: [record.id, record.table, record.row.databaseValue, record.column, record.kept.databaseValue,
                                     record.replaced.databaseValue, record.version, record.replacedVersion, record.keptBy, record.at])
                if db.changesCount > 0 {
                    stored.append(SyncConflict(serial: record.id, table: record.table, id: record.row, column: record.column,
                                               kept: record.kept, replaced: record.replaced,
                                               at: Date(timeIntervalSince1970: Double(record.at) / 1000), version: record.version,
                                               replacedVersion: record.replacedVersion, keptBy: record.keptBy))
                }
            }
            let cursor = max(page.cursor, page.hasMore ? page.cursor : through)
            if cursor > (Int64.fromDatabaseValue(try schema.value("conflictCursor", db)) ?? 0) {
                try schema.setValue("conflictCursor", cursor, db)
            }
            return stored
        }
    }

    /// Runs the resolvers of the open conflicts' tables: a value returned is written to the
    /// row (an ordinary change, pushed) unless the row already has it, and the conflict is
    /// forgotten. A conflict whose row does not have the kept version yet (the pull that
    /// brings it is to come) waits. Returns the serials resolved.
    func resolveConflicts() throws -> Set<Int64> {
        let resolvers = self.resolvers.withLock { $0 }
        guard !resolvers.isEmpty else { return [] }
        // A rename has no value to pick: the old one is the other device's row's (nor has a refusal).
        let open = try openConflicts().filter { resolvers[$0.table] != nil && $0.kind == .replaced }
        guard !open.isEmpty else { return [] }
        return try writer.write { db in
            var resolved = Set<Int64>()
            for conflict in open {
                guard let table = self.table(named: conflict.table), let resolve = resolvers[conflict.table] else { continue }
                let key = RowKey(table: table.name, id: conflict.id.databaseValue)
                guard let version = try self.baseVersion(key, db), version >= conflict.version else { continue }
                guard let value = resolve(SyncMerge(conflict: conflict)) else { continue }
                let columns = try SyncSchema.columns(of: table, db)
                if let local = columns.first(where: { $0 == conflict.column }) ?? columns.first(where: { $0.lowercased() == conflict.column.lowercased() }) {
                    let column = local.sqlIdentifier
                    let name = table.name.sqlIdentifier, id = table.idColumn.sqlIdentifier
                    try db.execute(sql: "UPDATE \(name) SET \(column) = ? WHERE \(id) = ? AND \(column) IS NOT ?",
                                   arguments: [value.databaseValue, key.id, value.databaseValue])
                }
                try db.execute(sql: "DELETE FROM \(SyncSchema.conflicts) WHERE id = ?", arguments: [conflict.serial])
                resolved.insert(conflict.serial)
            }
            return resolved
        }
    }
}

extension SyncEngine {
    /// Lists a change a rule of the server refused, among the conflicts (kind `.refused`,
    /// numbered below zero as renames are, and reported as they are).
    func listRefusal(_ change: PushAnswer.Result, reason: String, _ db: Database) throws {
        let count = (Int64.fromDatabaseValue(try SyncSchema.main.value("renames", db)) ?? 0) + 1
        let clientID = String.fromDatabaseValue(try schema.value("clientID", db)) ?? ""
        try db.execute(sql: """
            INSERT INTO \(SyncSchema.conflicts) (id, tbl, rid, col, kept, replaced, version, replaced_version, kept_by, at, kind, reason)
            VALUES (?, ?, ?, '', NULL, NULL, ?, ?, ?, ?, ?, ?)
            """, arguments: [-count, change.table, change.id.databaseValue, change.current.version, change.current.version, clientID,
                             Int64(Date().timeIntervalSince1970 * 1000), SyncConflict.Kind.refused.rawValue, reason])
        try SyncSchema.main.setValue("renames", count, db)
    }
}
