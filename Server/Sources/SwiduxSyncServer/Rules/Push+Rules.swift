import Logging
import PostgresNIO
import SwiduxSyncWire

extension Push {
    /// A row as the space holds it: its version, whether it is a tombstone, and (live) its
    /// columns' wire JSON.
    struct StoredRow {
        let version: Int64
        let deleted: Bool
        let columns: String?
    }

    /// What the rules made of one change: refused (with the row to answer: nil when the
    /// space never had it), or rewritten (the columns' wire JSON to write instead).
    enum Verdict {
        case refused(reason: String, current: StoredRow?)
        case rewritten(String)
    }

    /// One change to check: its place in its mutation and the row it would leave (its
    /// columns' wire JSON; nil for a delete).
    struct Checked {
        let index: Int
        let after: String?
    }

    /// The verdicts on `checked` changes, by their place: a reader's are all refused; a
    /// writer's are given to their table's rule, which sees the stored row and the row the
    /// change would leave. A rule that throws refuses; so does a rewrite the server cannot
    /// store.
    static func verdicts(_ changes: [Prepared], _ checked: [Checked], authority: PushAuthority, space: Int64,
                         connection: PostgresConnection, logger: Logger) async throws -> [Int: Verdict] {
        guard !checked.isEmpty else { return [:] }
        let stored = try await storedRows(checked.map { changes[$0.index] }, space: space, connection: connection, logger: logger)
        let name = try await spaceName(authority, space: space, connection: connection, logger: logger)
        var verdicts: [Int: Verdict] = [:]
        let read: @Sendable (String, SyncValue) async throws -> [String: SyncValue]? = { table, id in
            try await liveRow(table, id: id, space: space, connection: connection, logger: logger)
        }
        for (check, current) in zip(checked, stored) {
            let prepared = changes[check.index]
            if authority.role == .reader {
                verdicts[check.index] = .refused(reason: "\(authority.user.map { "\"\($0)\"" } ?? "this token") is a reader of space \"\(name)\": a reader may not write",
                                                 current: current)
                continue
            }
            guard let rule = authority.rules[prepared.table] else { continue }
            let decision: SyncRuleDecision
            do {
                let before = try current.flatMap { $0.deleted ? nil : $0.columns }.map(columns(of:))
                let after = try check.after.map(columns(of:))
                let id = try value(of: prepared.idJSON)
                decision = try await rule(SyncRuleInput(table: prepared.table, id: id, before: before, after: after, user: authority.user,
                                                        role: authority.role, space: name, row: read))
            } catch {
                verdicts[check.index] = .refused(reason: "\(error)", current: current)
                continue
            }
            switch decision {
            case .accept: break
            case .refuse(let reason): verdicts[check.index] = .refused(reason: reason, current: current)
            case .rewrite(let row):
                if let bad = row.keys.first(where: { $0.utf8.contains(0) || $0.utf8.count > SyncProtocol.maxKeyBytes }) {
                    verdicts[check.index] = .refused(reason: "the rule of \(prepared.table) rewrote a column name the server cannot store (\(bad.prefix(40)))",
                                                     current: current)
                } else {
                    do {
                        verdicts[check.index] = .rewritten(try WireJSON.text(row))
                    } catch {
                        verdicts[check.index] = .refused(reason: "the rule of \(prepared.table) rewrote a value the server cannot store: \(error)",
                                                         current: current)
                    }
                }
            }
        }
        return verdicts
    }

    /// The stored rows of `changes` (nil: none), in their order, with their columns.
    static func storedRows(_ changes: [Prepared], space: Int64, connection: PostgresConnection, logger: Logger) async throws -> [StoredRow?] {
        var rows = [StoredRow?](repeating: nil, count: changes.count)
        guard !changes.isEmpty else { return rows }
        let answer = try await connection.query("""
            SELECT u.n, r.version, r.deleted, CASE WHEN r.deleted THEN NULL ELSE r.columns::text END
            FROM sync_rows r
            JOIN unnest(\(changes.map(\.table)), \(changes.map(\.rid))) WITH ORDINALITY AS u(tbl, rid, n)
                 ON r.tbl = u.tbl AND r.rid = u.rid
            WHERE r.space = \(space)
            """, logger: logger)
        for try await (n, version, deleted, columns) in answer.decode((Int64, Int64, Bool, String?).self) {
            guard n >= 1, n <= changes.count else { throw SyncServerError("the look-up answered row \(n) of \(changes.count)") }
            rows[Int(n) - 1] = StoredRow(version: version, deleted: deleted, columns: columns)
        }
        return rows
    }

    /// The space's name: the request's, or read.
    private static func spaceName(_ authority: PushAuthority, space: Int64, connection: PostgresConnection,
                                  logger: Logger) async throws -> String {
        if let name = authority.space { return name }
        var name = ""
        for try await found in try await connection.query("SELECT name FROM sync_spaces WHERE id = \(space)", logger: logger)
            .decode(String.self) { name = found }
        return name
    }

    /// A live row of the space (``SyncRuleInput/row(_:id:)``).
    private static func liveRow(_ table: String, id: SyncValue, space: Int64, connection: PostgresConnection,
                                logger: Logger) async throws -> [String: SyncValue]? {
        let rid = try WireJSON.id(id).key
        var found: String?
        for try await columns in try await connection.query("""
            SELECT columns::text FROM sync_rows WHERE space = \(space) AND tbl = \(table) AND rid = \(rid) AND NOT deleted
            """, logger: logger).decode(String.self) { found = columns }
        return try found.map(columns(of:))
    }

    /// A row's columns from their wire JSON.
    static func columns(of json: String) throws -> [String: SyncValue] {
        try read(json) { try $0.syncColumns() ?? [:] }
    }

    /// A value (an id) from its wire JSON.
    static func value(of json: String) throws -> SyncValue {
        try read(json) { try $0.syncValue() }
    }

    private static func read<T>(_ json: String, _ body: (inout WireReader) throws -> T) throws -> T {
        var text = json
        return try text.withUTF8 { bytes in
            var reader = WireReader(UnsafeRawBufferPointer(bytes))
            let value = try body(&reader)
            try reader.end()
            return value
        }
    }
}
