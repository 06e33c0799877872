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
    /// The most connections one client address may have open (`--max-connections-per-address`,
    /// default 64); more are closed at once.
    public var maxConnectionsPerAddress: Int

    /// Limits with the given values; each defaults to the documented value.
    ///
    /// ```swift
    /// SyncServerLimits(databaseTimeout: .seconds(2), maxConnectionsPerAddress: 16)
    /// ```
    public init(databaseTimeout: Duration = .seconds(4), pullPageBytes: Int = 4 << 20, idleTimeout: Duration = .seconds(30),
                requestTimeout: Duration = .seconds(60), maxConnectionsPerAddress: Int = 64) {
        self.databaseTimeout = databaseTimeout
        self.pullPageBytes = pullPageBytes
        self.idleTimeout = idleTimeout
        self.requestTimeout = requestTimeout
        self.maxConnectionsPerAddress = maxConnectionsPerAddress
    }
}
