import GRDB

/// The AFTER INSERT, UPDATE and DELETE triggers that write one log entry per changed row of a
/// table, in the transaction of the change, whoever made it (a Swidux flush, plain SQL in
/// another process, an `ON DELETE CASCADE`). The change journal's triggers are made this way
/// (the sync outbox is fed from the journal); the log table, the values an entry carries
/// besides the table and the row's id, and whether inserts and updates are skipped while a
/// condition holds are the caller's.
///
/// An entry is `(tbl, rid, …)`: the table's name and the row's id as stored, then the
/// extra columns of the event. An update that changes the row's id writes two entries: one
/// for the old id (``movedAway``: the row is gone from it) and one for the new id
/// (``updated``).
///
/// ```swift
/// let triggers = RowChangeTriggers(
///     owner: "swidux_change", log: "swidux_change", table: "todo", idColumn: "id",
///     inserted: [("placed", "1")], movedAway: [("placed", "0")],
///     updated: [("placed", "OLD.\"id\" IS NOT NEW.\"id\"")], deleted: [("placed", "0")])
/// try db.execute(sql: triggers.sql)
/// ```
package struct RowChangeTriggers: Sendable {
    /// A log column and the SQL expression of its value (it may read `OLD` and `NEW`).
    package typealias Value = (column: String, expression: String)

    /// The log table the triggers insert into.
    package let log: String
    /// The logged table.
    package let table: String
    /// The logged table's id column.
    package let idColumn: String
    /// The names of the insert, update and delete triggers: `<owner>_<table>_insert` and so on.
    package let names: [String]
    /// The values of an inserted row's entry (`NEW` is the row).
    package let inserted: [Value]
    /// The values of the old id's entry when an update changed the row's id (`OLD` is the
    /// row as it was).
    package let movedAway: [Value]
    /// The values of an updated row's entry, under its new id (`OLD` and `NEW`).
    package let updated: [Value]
    /// The values of a deleted row's entry (`OLD` is the row).
    package let deleted: [Value]
    /// The condition under which the insert and update triggers write their entries (their
    /// `WHEN` clause); `nil`: always. A delete is always logged.
    package let insertAndUpdateWhen: String?

    package init(owner: String, log: String, table: String, idColumn: String,
                 inserted: [Value], movedAway: [Value], updated: [Value], deleted: [Value],
                 insertAndUpdateWhen: String? = nil) {
        self.log = log
        self.table = table
        self.idColumn = idColumn
        self.names = Self.names(owner: owner, table: table)
        self.inserted = inserted
        self.movedAway = movedAway
        self.updated = updated
        self.deleted = deleted
        self.insertAndUpdateWhen = insertAndUpdateWhen
    }

    /// The trigger names an `owner` gives `table`'s triggers: insert, update, delete.
    package static func names(owner: String, table: String) -> [String] {
        ["insert", "update", "delete"].map { "\(owner)_\(table)_\($0)" }
    }

    /// `OLD.<id> IS NOT NEW.<id>`: whether an update changed the row's id.
    package var idChanged: String { Self.changed(idColumn) }

    /// `OLD.<column> IS NOT NEW.<column>`, for an update trigger's expressions.
    package static func changed(_ column: String) -> String {
        let quoted = column.sqlIdentifier
        return "OLD.\(quoted) IS NOT NEW.\(quoted)"
    }

    /// `text` as an SQL string literal. Table and column names end up inside the triggers'
    /// text, where a quote in a name must not end the literal early.
    package static func literal(_ text: String) -> String {
        "'" + text.replacingOccurrences(of: "'", with: "''") + "'"
    }

    /// The statements that create the three triggers where they do not exist.
    package var sql: String {
        definitions.map { "CREATE TRIGGER IF NOT EXISTS \($0);\n" }.joined()
    }

    /// Each trigger's definition from its name on (insert, update, delete). SQLite keeps a
    /// trigger's text from its name on as it was given, after `CREATE TRIGGER `, so a stored
    /// trigger made from the same values ends with it (``isCurrent(_:at:)``).
    package var definitions: [String] {
        let quoted = table.sqlIdentifier
        let log = self.log.sqlIdentifier
        let name = Self.literal(table)
        let id = idColumn.sqlIdentifier
        let when = insertAndUpdateWhen.map { " WHEN \($0)" } ?? ""
        func columns(_ values: [Value]) -> String {
            (["tbl", "rid"] + values.map { $0.column.sqlIdentifier }).joined(separator: ", ")
        }
        func expressions(_ row: String, _ values: [Value]) -> String {
            ([name, "\(row).\(id)"] + values.map(\.expression)).joined(separator: ", ")
        }
        return [
            """
            \(names[0].sqlIdentifier) AFTER INSERT ON \(quoted)\(when)
            BEGIN
                INSERT INTO \(log) (\(columns(inserted))) VALUES (\(expressions("NEW", inserted)));
            END
            """,
            """
            \(names[1].sqlIdentifier) AFTER UPDATE ON \(quoted)\(when)
            BEGIN
                INSERT INTO \(log) (\(columns(movedAway))) SELECT \(expressions("OLD", movedAway)) WHERE \(idChanged);
                INSERT INTO \(log) (\(columns(updated))) VALUES (\(expressions("NEW", updated)));
            END
            """,
            """
            \(names[2].sqlIdentifier) AFTER DELETE ON \(quoted)
            BEGIN
                INSERT INTO \(log) (\(columns(deleted))) VALUES (\(expressions("OLD", deleted)));
            END
            """,
        ]
    }

    /// Whether the trigger stored as `sql` (its `sqlite_master` text) was made from the
    /// definition at `index` (0 insert, 1 update, 2 delete): a trigger made from other values
    /// (another id column, other columns compared, an older layout of the log) is not.
    package func isCurrent(_ sql: String, at index: Int) -> Bool {
        sql.hasSuffix(definitions[index])
    }

    /// Makes the triggers that are missing, and again those stored with another text
    /// (``isCurrent(_:at:)``), in the caller's transaction so that no change goes unlogged
    /// in between. Returns whether any was missing.
    ///
    /// ```swift
    /// let wasMissing = try triggers.make(in: db)
    /// ```
    @discardableResult
    package func make(in db: Database) throws -> Bool {
        var missing = false
        for (index, name) in names.enumerated() {
            if let stored = try String.fetchOne(db, sql: "SELECT sql FROM sqlite_master WHERE type = 'trigger' AND name = ?",
                                                arguments: [name]) {
                if isCurrent(stored, at: index) { continue }
                try db.execute(sql: "DROP TRIGGER \(name.sqlIdentifier)")
            } else {
                missing = true
            }
            try db.execute(sql: "CREATE TRIGGER \(definitions[index])")
        }
        return missing
    }

    /// Whether all three triggers exist as ``definitions`` makes them.
    package func areCurrent(in db: Database) throws -> Bool {
        for (index, name) in names.enumerated() {
            guard let stored = try String.fetchOne(db, sql: "SELECT sql FROM sqlite_master WHERE type = 'trigger' AND name = ?",
                                                   arguments: [name]),
                  isCurrent(stored, at: index) else { return false }
        }
        return true
    }
}
