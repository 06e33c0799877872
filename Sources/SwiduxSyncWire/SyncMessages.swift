/// The body of `POST /v1/push`: a client's next mutations, in order.
///
/// ```swift
/// let request = PushRequest(clientID: clientID, mutations: [SyncMutation(id: 7, changes: changes)])
/// ```
public struct PushRequest: Hashable, Sendable, Codable {
    /// The client's stable id (one per local database file).
    public var clientID: String
    /// Mutations in increasing ``SyncMutation/id`` order. The server applies those with an
    /// id greater than the last it applied for this client; one with an id it already
    /// applied is a replay when its content is the same (the original results are answered,
    /// nothing is applied again) and refused with 409 ``SyncErrorBody/Code/mutationConflict``
    /// when it differs (a copied or restored database file: the client takes a new client id).
    public var mutations: [SyncMutation]
    /// The ``PushResponse/scope`` the client's state belongs to, when it knows one: the
    /// server refuses the push with 409 ``SyncErrorBody/Code/scopeChanged`` when it is not
    /// its own (another space's token, or a replaced server database). Optional.
    public var scope: String?
    /// Whether each result's ``SyncResult/current`` row carries its ``SyncRow/columns``.
    /// `nil` (an older client) or `true`: it does. `false`: they are left out — the client
    /// sent them — so that the answer to a large push is a small fraction of its body
    /// (a first push's answers repeated every pushed row). A refused change's
    /// result is a tombstone either way. An older server ignores it. Optional.
    ///
    /// ```swift
    /// PushRequest(clientID: clientID, mutations: mutations, resultColumns: false)
    /// ```
    public var resultColumns: Bool?

    /// A push.
    ///
    /// ```swift
    /// PushRequest(clientID: "…", mutations: [])
    /// ```
    public init(clientID: String, mutations: [SyncMutation], scope: String? = nil, resultColumns: Bool? = nil) {
        self.clientID = clientID
        self.mutations = mutations
        self.scope = scope
        self.resultColumns = resultColumns
    }
}

/// Changes a client sends under one mutation id. Its content never changes once it was
/// sent: a retry sends the same bytes.
///
/// ```swift
/// SyncMutation(id: 8, changes: [change])
/// ```
public struct SyncMutation: Hashable, Sendable, Codable {
    /// Increasing per client, from 1.
    public var id: Int64
    /// The changed rows, at most one per table and id.
    public var changes: [SyncChange]

    /// A mutation.
    ///
    /// ```swift
    /// SyncMutation(id: 1, changes: [])
    /// ```
    public init(id: Int64, changes: [SyncChange]) {
        self.id = id
        self.changes = changes
    }
}

/// The answer to a push: the last mutation id the server has applied for the client, the
/// mutations this request acknowledges, and what became of each of their changes.
///
/// ```swift
/// let response = try JSONDecoder().decode(PushResponse.self, from: body)
/// for result in response.results where !result.applied { /* the server kept `result.current` */ }
/// ```
public struct PushResponse: Hashable, Sendable, Codable {
    /// The last mutation id applied for this client.
    public var lastMutationID: Int64
    /// One result per change of each acknowledged mutation, in order: applied by this
    /// request, or by an earlier one whose answer was lost (then the original results).
    public var results: [SyncResult]
    /// The ids of the request's mutations this answer acknowledges, in order (every one of
    /// them, from a server that writes this field; a client deletes exactly these). `nil`
    /// from an older server.
    public var acknowledged: [Int64]?
    /// The identity of the state the client syncs with: the server database's identity and
    /// the token's space. A cursor and mutation ids belong to one scope; when it changes,
    /// the client syncs as for the first time. `nil` from an older server.
    public var scope: String?
    /// The space's last conflict id (``ConflictsResponse``; 0 when there is none). A server
    /// that writes it merges updates by column: an update's ``SyncChange/columns`` are its
    /// changes, every other column is kept. `nil` from an older server (which replaces the
    /// whole row: a client then pushes every column).
    public var conflicts: Int64?

    /// A push answer.
    ///
    /// ```swift
    /// PushResponse(lastMutationID: 8, results: [], acknowledged: [8], scope: "…")
    /// ```
    public init(lastMutationID: Int64, results: [SyncResult], acknowledged: [Int64]? = nil, scope: String? = nil,
                conflicts: Int64? = nil) {
        self.lastMutationID = lastMutationID
        self.results = results
        self.acknowledged = acknowledged
        self.scope = scope
        self.conflicts = conflicts
    }
}

/// What the server did with one pushed change.
///
/// ```swift
/// if !result.applied, let current = result.current { /* delete wins: apply `current` locally */ }
/// ```
public struct SyncResult: Hashable, Sendable, Codable {
    /// The change's table.
    public var table: String
    /// The change's row id.
    public var id: SyncValue
    /// `false` when the change was refused: an update of a row whose tombstone is newer
    /// than the change's base version (delete wins over a stale update), or a change a rule
    /// of the server refused (then with a ``reason``).
    public var applied: Bool
    /// The row as the server holds it after this change (its version is the row's new
    /// version when applied; the tombstone when refused by delete wins). Without its
    /// ``SyncRow/columns`` when the request's ``PushRequest/resultColumns`` was `false`,
    /// except for a change a rule refused or rewrote: then it is the server's row with its
    /// columns (a tombstone of version 0 for a refused insert of a row the server never
    /// had), which the client takes.
    public var current: SyncRow
    /// Why a rule of the server refused the change (`"a title has 1 to 500 characters"`);
    /// `nil` otherwise. On the wire it is the result's extension member
    /// `"ext":{"reason":"…"}` (``SyncProtocol/extensionMember``), written only when set, so
    /// that a client older than it skips it.
    public var reason: String?

    /// A result.
    ///
    /// ```swift
    /// SyncResult(table: "todo", id: .text(id), applied: true, current: row)
    /// ```
    public init(table: String, id: SyncValue, applied: Bool, current: SyncRow, reason: String? = nil) {
        self.table = table
        self.id = id
        self.applied = applied
        self.current = current
        self.reason = reason
    }

    private enum CodingKeys: String, CodingKey { case table, id, applied, current, ext }
    private enum ExtensionKeys: String, CodingKey { case reason }

    /// Reads a result, its ``reason`` from the extension member.
    ///
    /// ```swift
    /// let result = try JSONDecoder().decode(SyncResult.self, from: body)
    /// ```
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        table = try container.decode(String.self, forKey: .table)
        id = try container.decode(SyncValue.self, forKey: .id)
        applied = try container.decode(Bool.self, forKey: .applied)
        current = try container.decode(SyncRow.self, forKey: .current)
        if container.contains(.ext), try !container.decodeNil(forKey: .ext) {
            reason = try container.nestedContainer(keyedBy: ExtensionKeys.self, forKey: .ext)
                .decodeIfPresent(String.self, forKey: .reason)
        }
    }

    /// Writes a result, its ``reason`` (when set) as the extension member.
    ///
    /// ```swift
    /// let body = try JSONEncoder().encode(result)
    /// ```
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(table, forKey: .table)
        try container.encode(id, forKey: .id)
        try container.encode(applied, forKey: .applied)
        try container.encode(current, forKey: .current)
        if let reason {
            var ext = container.nestedContainer(keyedBy: ExtensionKeys.self, forKey: .ext)
            try ext.encode(reason, forKey: .reason)
        }
    }
}

/// The answer to `GET /v1/pull?after=<cursor>&limit=<n>&wait=<seconds>`: the rows of the
/// token's space with a version after the cursor, in version order.
///
/// ```swift
/// var cursor: Int64 = 0
/// repeat {
///     let page = try await pull(after: cursor)
///     apply(page.rows)
///     cursor = page.cursor
/// } while page.hasMore
/// ```
public struct PullResponse: Hashable, Sendable, Codable {
    /// Rows after the request's cursor, in increasing version order (each id at most once,
    /// in its latest state).
    public var rows: [SyncRow]
    /// The cursor for the next pull: the last row's version, or the request's cursor when
    /// there is none.
    public var cursor: Int64
    /// `true` when more rows follow (the page was cut at the limit).
    public var hasMore: Bool
    /// The space's high-water mark: its highest row version (0 when empty). A client whose
    /// cursor is past it pulls again from 0. `nil` from an older server.
    public var end: Int64?
    /// The identity of the state the cursor belongs to (see ``PushResponse/scope``). `nil`
    /// from an older server.
    public var scope: String?
    /// The space's last conflict id (see ``PushResponse/conflicts``): a client whose conflict
    /// cursor is behind it asks `GET /v1/conflicts` for its own. `nil` from an older server.
    public var conflicts: Int64?

    /// A page.
    ///
    /// ```swift
    /// PullResponse(rows: [], cursor: 0, hasMore: false)
    /// ```
    public init(rows: [SyncRow], cursor: Int64, hasMore: Bool, end: Int64? = nil, scope: String? = nil, conflicts: Int64? = nil) {
        self.rows = rows
        self.cursor = cursor
        self.hasMore = hasMore
        self.end = end
        self.scope = scope
        self.conflicts = conflicts
    }
}

/// One value a push replaced without having seen it: two clients changed the same
/// column of a row since the version the later push was based on; the later push (in server
/// order) won, and the earlier value is recorded for the client that wrote it.
///
/// ```swift
/// for record in response.conflicts { print("\(record.table).\(record.column): \(record.replaced) → \(record.kept)") }
/// ```
public struct ConflictRecord: Hashable, Sendable, Codable {
    /// The conflict's id: increasing per server, the cursor of `GET /v1/conflicts`.
    public var id: Int64
    /// The row's table.
    public var table: String
    /// The row's id.
    public var row: SyncValue
    /// The column.
    public var column: String
    /// The value the server kept (the later push's).
    public var kept: SyncValue
    /// The value it replaced (written by the client the record is for).
    public var replaced: SyncValue
    /// The row's version written by the later push.
    public var version: Int64
    /// The version that had written the replaced value.
    public var replacedVersion: Int64
    /// The client id of the later push.
    public var keptBy: String
    /// When the server recorded it: milliseconds since 1970.
    public var at: Int64

    /// A record.
    ///
    /// ```swift
    /// ConflictRecord(id: 1, table: "item", row: .text("6F1…"), column: "title", kept: .text("b"), replaced: .text("a"),
    ///                version: 9, replacedVersion: 8, keptBy: "…", at: 1_767_225_600_000)
    /// ```
    public init(id: Int64, table: String, row: SyncValue, column: String, kept: SyncValue, replaced: SyncValue,
                version: Int64, replacedVersion: Int64, keptBy: String, at: Int64) {
        self.id = id
        self.table = table
        self.row = row
        self.column = column
        self.kept = kept
        self.replaced = replaced
        self.version = version
        self.replacedVersion = replacedVersion
        self.keptBy = keptBy
        self.at = at
    }
}

/// The answer to `GET /v1/conflicts?client=<id>&after=<n>&limit=<n>`: the conflicts of the
/// token's space whose replaced value that client wrote, after the conflict id `after`, in order.
///
/// ```swift
/// let page = try JSONDecoder().decode(ConflictsResponse.self, from: body)
/// ```
public struct ConflictsResponse: Hashable, Sendable, Codable {
    /// The conflicts, in increasing ``ConflictRecord/id`` order.
    public var conflicts: [ConflictRecord]
    /// The cursor for the next request: the last conflict's id, or the request's `after`.
    public var cursor: Int64
    /// `true` when more follow.
    public var hasMore: Bool

    /// A page of conflicts.
    ///
    /// ```swift
    /// ConflictsResponse(conflicts: [], cursor: 0, hasMore: false)
    /// ```
    public init(conflicts: [ConflictRecord], cursor: Int64, hasMore: Bool) {
        self.conflicts = conflicts
        self.cursor = cursor
        self.hasMore = hasMore
    }
}

/// The body of `PUT /v1/tables`: the tables a client syncs. A table becomes known to the
/// token's space; a push naming a table the space does not know is refused with 400.
///
/// ```swift
/// TablesRequest(tables: ["list", "item"])
/// ```
public struct TablesRequest: Hashable, Sendable, Codable {
    /// Table names: 1 to 63 characters, letters, digits and `_`, not starting with a digit.
    public var tables: [String]

    /// A declaration.
    ///
    /// ```swift
    /// TablesRequest(tables: ["todo"])
    /// ```
    public init(tables: [String]) { self.tables = tables }
}

/// The body of every error answer (4xx and 5xx): one sentence naming the cause.
///
/// ```swift
/// SyncErrorBody(error: "unknown table \"nope\" (declare it with PUT /v1/tables)")
/// ```
public struct SyncErrorBody: Hashable, Sendable, Codable {
    /// What was wrong.
    public var error: String
    /// A machine-readable cause, for the refusals a client acts on (409). `nil` otherwise.
    public var code: Code?
    /// The id of the request in the server's log (every line of the request names it as
    /// `hb.request.id`), for a report to the server's operator. `nil` from older servers.
    public var requestID: String?

    /// The causes a client acts on.
    ///
    /// ```swift
    /// if body.code == .mutationConflict { /* take a new client id, push again */ }
    /// ```
    public enum Code: String, Hashable, Sendable, Codable {
        /// 409: a mutation id this client already used carries another content (the
        /// database file was copied or restored from a backup). Nothing was applied; the
        /// client takes a new client id and pushes its pending changes again.
        case mutationConflict = "mutation_conflict"
        /// 409: the push's ``PushRequest/scope`` is not the server's (another space's token,
        /// or a replaced server database). Nothing was applied; the client syncs as for the
        /// first time (pull everything, push everything).
        case scopeChanged = "scope_changed"
    }

    /// An error body.
    ///
    /// ```swift
    /// SyncErrorBody(error: "missing bearer token")
    /// ```
    public init(error: String, code: Code? = nil, requestID: String? = nil) {
        self.error = error
        self.code = code
        self.requestID = requestID
    }
}
