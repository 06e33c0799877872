/// The body of `POST /v1/push`: a client's next mutations, in order.
///
/// ```swift
/// let request = PushRequest(clientID: clientID, mutations: [SyncMutation(id: 7, changes: changes)])
/// ```
public struct PushRequest: Hashable, Sendable, Codable {
    /// The client's stable id (one per local database file).
    public var clientID: String
    /// Mutations in increasing ``SyncMutation/id`` order. The server applies those with an
    /// id greater than the last it applied for this client and skips the others (a retried
    /// push is applied once).
    public var mutations: [SyncMutation]

    /// A push.
    ///
    /// ```swift
    /// PushRequest(clientID: "…", mutations: [])
    /// ```
    public init(clientID: String, mutations: [SyncMutation]) {
        self.clientID = clientID
        self.mutations = mutations
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

/// The answer to a push: the last mutation id the server has applied for the client, and
/// what became of each change of the mutations it applied now.
///
/// ```swift
/// let response = try JSONDecoder().decode(PushResponse.self, from: body)
/// for result in response.results where !result.applied { /* the server kept `result.current` */ }
/// ```
public struct PushResponse: Hashable, Sendable, Codable {
    /// The last mutation id applied for this client (all mutations up to it are acknowledged).
    public var lastMutationID: Int64
    /// One result per change of each mutation applied by this request (none for skipped ones).
    public var results: [SyncResult]

    /// A push answer.
    ///
    /// ```swift
    /// PushResponse(lastMutationID: 8, results: [])
    /// ```
    public init(lastMutationID: Int64, results: [SyncResult]) {
        self.lastMutationID = lastMutationID
        self.results = results
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
    /// than the change's base version (delete wins over a stale update).
    public var applied: Bool
    /// The row as the server holds it after this change (its version is the row's new
    /// version when applied; the tombstone when refused).
    public var current: SyncRow

    /// A result.
    ///
    /// ```swift
    /// SyncResult(table: "todo", id: .text(id), applied: true, current: row)
    /// ```
    public init(table: String, id: SyncValue, applied: Bool, current: SyncRow) {
        self.table = table
        self.id = id
        self.applied = applied
        self.current = current
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

    /// A page.
    ///
    /// ```swift
    /// PullResponse(rows: [], cursor: 0, hasMore: false)
    /// ```
    public init(rows: [SyncRow], cursor: Int64, hasMore: Bool) {
        self.rows = rows
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

    /// An error body.
    ///
    /// ```swift
    /// SyncErrorBody(error: "missing bearer token")
    /// ```
    public init(error: String) { self.error = error }
}
