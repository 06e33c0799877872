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
    /// ``SwiduxSyncWire/SyncProtocol/maxBodyBytes``).
    public var pullPageBytes: Int

    /// Limits with the given values; each defaults to the documented value.
    ///
    /// ```swift
    /// SyncServerLimits(databaseTimeout: .seconds(2))
    /// ```
    public init(databaseTimeout: Duration = .seconds(4), pullPageBytes: Int = 4 << 20) {
        self.databaseTimeout = databaseTimeout
        self.pullPageBytes = pullPageBytes
    }
}
