/// The sync server's timeouts and bounds (`swidux-sync-server serve` sets each with an option).
///
/// ```swift
/// var limits = SyncServerLimits()
/// limits.databaseTimeout = .seconds(2)
/// let server = SyncServer(postgres: url, port: 8080, limits: limits)
/// ```
public struct SyncServerLimits: Sendable, Hashable {
    /// How long a request waits for a database connection before it is answered 503 "the
    /// database is unavailable" (`--database-timeout`, default 4 s). While PostgreSQL is
    /// known to be down, requests get 503 at once.
    public var databaseTimeout: Duration
    /// About how many bytes of rows a pull page holds (`--pull-page-bytes`, default 4 MiB);
    /// a page always holds at least one row, however large (a push carries at most
    /// `SyncProtocol.maxBodyBytes`).
    public var pullPageBytes: Int
    /// How long a connection may stay idle — before its first request, between requests,
    /// or stalled inside a request's head — before the server closes it (`--idle-timeout`,
    /// default 30 s). An answer being prepared (a long poll) is not idleness.
    public var idleTimeout: Duration
    /// How long a request's body may take to arrive in full after its head
    /// (`--request-timeout`, default 60 s): a slow or unfinished body closes the connection.
    public var requestTimeout: Duration
    /// The most connections one client address may have open that have not yet made an
    /// authenticated request (`--max-connections-per-address`, default 64). A connection
    /// leaves its address's count once a request of it authenticates. A connection past the
    /// limit is admitted on probation: closed if no request head arrives within 2 s, closed at
    /// once if its first request carries no token, and a request of it whose token fails is
    /// answered 429 with `Retry-After` and closed. So thousands of users behind one address (a
    /// carrier's NAT) connect, while one address cannot hold connections without signing in.
    public var maxConnectionsPerAddress: Int
    /// The most requests (long polls included) one user may have in flight
    /// (`--max-requests-per-user`, default 64): more are answered 429 with `Retry-After`,
    /// changing nothing. A user is a JWT's subject, or an opaque token.
    public var maxRequestsPerUser: Int
    /// The most requests one space may have in flight, all its users and tokens together
    /// (`--max-requests-per-space`, default 1,024): more are answered 429 with `Retry-After`.
    public var maxRequestsPerSpace: Int
    /// What a 429 answer's `Retry-After` asks the client to wait, and a 503's while PostgreSQL
    /// does not answer (`--retry-after`, default 5 s; sent in whole seconds, at least 1).
    public var retryAfter: Duration

    /// Limits with the given values; each defaults to the documented value.
    ///
    /// ```swift
    /// SyncServerLimits(databaseTimeout: .seconds(2), maxConnectionsPerAddress: 16)
    /// SyncServerLimits(maxRequestsPerUser: 8, maxRequestsPerSpace: 100, retryAfter: .seconds(10))
    /// ```
    public init(databaseTimeout: Duration = .seconds(4), pullPageBytes: Int = 4 << 20, idleTimeout: Duration = .seconds(30),
                requestTimeout: Duration = .seconds(60), maxConnectionsPerAddress: Int = 64, maxRequestsPerUser: Int = 64,
                maxRequestsPerSpace: Int = 1024, retryAfter: Duration = .seconds(5)) {
        self.maxRequestsPerUser = maxRequestsPerUser
        self.maxRequestsPerSpace = maxRequestsPerSpace
        self.retryAfter = retryAfter
        self.databaseTimeout = databaseTimeout
        self.pullPageBytes = pullPageBytes
        self.idleTimeout = idleTimeout
        self.requestTimeout = requestTimeout
        self.maxConnectionsPerAddress = maxConnectionsPerAddress
    }
}
