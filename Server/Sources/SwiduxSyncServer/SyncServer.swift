import Hummingbird
import HummingbirdCore
import HummingbirdTLS
import Logging
import NIOCore
import NIOSSL
import PostgresNIO
import ServiceLifecycle

/// The sync server: migrates its schema, then serves the ``SwiduxSyncWire/SyncProtocol``
/// HTTP surface on `host:port` for the spaces and tokens in its PostgreSQL database.
///
/// ```swift
/// let server = SyncServer(postgres: try PostgresURL("postgres://swidux@127.0.0.1/swidux"), port: 8080)
/// try await server.run { port in print("listening on \(port)") }
/// ```
public struct SyncServer: Sendable {
    /// The database.
    public var postgres: PostgresURL
    /// The address to listen on.
    public var host: String
    /// The port to listen on; 0 picks a free one (reported to `onListening`).
    public var port: Int
    /// Where the server logs.
    public var logger: Logger
    /// Timeouts and bounds (``SyncServerLimits``).
    public var limits: SyncServerLimits
    /// The certificate and key to serve https with; nil: plain http (behind a TLS proxy, or
    /// on a trusted network).
    public var tls: TLSConfiguration?
    /// The JSON Web Tokens accepted as users (each with a personal space), besides the
    /// opaque tokens of `token create`; nil: opaque tokens only.
    public var jwt: JWTConfiguration?
    /// What the server counts (``SyncServerMetrics``).
    public var metrics = SyncServerMetrics()
    /// The port of the metrics listener (`GET /metrics`, Prometheus text); nil: none. 0 picks
    /// a free one (reported to ``onMetricsListening``).
    public var metricsPort: Int?
    /// The address of the metrics listener: the loopback by default, since metrics are for the
    /// operator, not for clients.
    public var metricsHost = "127.0.0.1"
    /// Told the metrics listener's port once it accepts requests.
    public var onMetricsListening: @Sendable (Int) async -> Void = { _ in }
    /// The rules pushed changes go through, by table (``SyncRules``; none by default).
    ///
    /// ```swift
    /// server.rules["item"] = { input in
    ///     guard case .text(let title)? = input.after?["title"], !title.isEmpty else { return .refuse(reason: "a title is required") }
    ///     return .accept
    /// }
    /// ```
    public var rules = SyncRules()

    /// A server (not yet running).
    ///
    /// ```swift
    /// SyncServer(postgres: url, host: "127.0.0.1", port: 0, limits: SyncServerLimits(databaseTimeout: .seconds(2)))
    /// // https:
    /// let tls = TLSConfiguration.makeServerConfiguration(
    ///     certificateChain: try NIOSSLCertificate.fromPEMFile("chain.pem").map { .certificate($0) },
    ///     privateKey: .privateKey(try NIOSSLPrivateKey(file: "key.pem", format: .pem)))
    /// SyncServer(postgres: url, port: 8443, tls: tls)
    /// // users signed in with the app's identity provider:
    /// SyncServer(postgres: url, port: 8080, jwt: try JWTConfiguration(jwks: keySet, audience: "todos"))
    /// ```
    public init(postgres: PostgresURL, host: String = "127.0.0.1", port: Int, limits: SyncServerLimits = SyncServerLimits(),
                tls: TLSConfiguration? = nil, jwt: JWTConfiguration? = nil, logger: Logger = Logger(label: "swidux-sync-server")) {
        self.jwt = jwt
        self.postgres = postgres
        self.host = host
        self.port = port
        self.limits = limits
        self.tls = tls
        self.logger = logger
    }

    /// Runs the server (``run(stopOnSignals:onListening:)``) in a task of its own and returns
    /// once it accepts requests: its port, and the task (cancel it to stop the server). For
    /// tests and benchmarks that run a server in their own process.
    ///
    /// ```swift
    /// let (port, task) = try await SyncServer(postgres: url, port: 0).start()
    /// defer { task.cancel() }
    /// ```
    /// - Throws: ``SyncServerError`` when the server stopped before it listened (its own
    ///   error is in the task's result).
    public func start() async throws -> (port: Int, task: Task<Void, any Error>) {
        let (ports, continuation) = AsyncStream.makeStream(of: Int.self)
        let task = Task {
            defer { continuation.finish() }
            try await run { continuation.yield($0) }
        }
        var iterator = ports.makeAsyncIterator()
        guard let port = await iterator.next() else {
            let reason: String
            if case .failure(let error) = await task.result { reason = ": \(error)" } else { reason = "" }
            throw SyncServerError("the in-process server did not start\(reason)")
        }
        return (port, task)
    }

    /// Migrates the schema, then serves until the task is cancelled or, with
    /// `stopOnSignals`, until SIGTERM or SIGINT arrives (graceful shutdown).
    /// `onListening` gets the bound port once requests are accepted. It is ``service()`` in
    /// an application of its own, with the connection limits, timeouts and https of ``limits``
    /// and ``tls``.
    ///
    /// ```swift
    /// try await server.run(stopOnSignals: true) { print("port \($0)") }
    /// ```
    public func run(stopOnSignals: Bool = false, onListening: @escaping @Sendable (Int) async -> Void = { _ in }) async throws {
        let sync = try await service()
        let router = Router(context: SyncRequestContext.self)
        sync.routes.add(to: router, countingAll: true)
        let (counts, ends) = (sync.routes.connections, sync.routes.connectionEnds)
        let (requestTimeout, idleTimeout) = (Self.timeAmount(limits.requestTimeout), Self.timeAmount(limits.idleTimeout))
        let http = HTTP1Channel.Configuration(
            additionalChannelHandlers: [ConnectionLimitHandler(counts: counts, logger: logger),
                                        ConnectionEndHandler(ends: ends),
                                        RequestTimeoutHandler(timeout: requestTimeout, logger: logger),
                                        ExpectContinueHandler()],
            idleTimeout: idleTimeout)
        let server: HTTPServerBuilder = if let tls {
            try .tls(.http1(configuration: http), tlsConfiguration: tls)
        } else {
            .http1(configuration: http)
        }
        let app = Application(
            router: router,
            server: server,
            configuration: .init(address: .hostname(host, port: port), serverName: "swidux-sync-server"),
            onServerRunning: { channel in await onListening(channel.localAddress?.port ?? 0) },
            logger: logger)
        // Stopped in reverse order: open long polls are answered first, then the application
        // drains, then the pool stops.
        var services: [any Service] = [sync, app, sync.longPollCloser]
        if let metricsPort { services.append(metricsApplication(port: metricsPort)) }
        let serviceGroup = ServiceGroup(configuration: .init(
            services: services,
            gracefulShutdownSignals: stopOnSignals ? [.sigterm, .sigint] : [],
            logger: logger))
        try await serviceGroup.run()
    }

    /// The server's parts for an operator's own Hummingbird application (``SyncService``):
    /// checks that PostgreSQL is reachable, migrates the schema, and reads the JSON Web Key
    /// Set, before any request is served.
    ///
    /// ```swift
    /// let sync = try await SyncServer(postgres: url, port: 8080).service()
    /// sync.addRoutes(to: router)
    /// ```
    public func service() async throws -> SyncService {
        var configuration = postgres.clientConfiguration
        configuration.options.connectTimeout = .seconds(5)
        let logger = self.logger
        try await postgres.checkReachable(logger: logger)
        // The migration on a pool of its own, run and ended here: the service's pool runs
        // in the operator's service group.
        let migration = PostgresClient(configuration: configuration, backgroundLogger: logger)
        let identity: String = try await withThrowingTaskGroup(of: String?.self) { group in
            // The pool runs before the migration leases from it (PostgresNIO warns of a lease
            // from a client whose run() has not been called yet).
            let (started, starting) = AsyncStream.makeStream(of: Void.self)
            group.addTask {
                starting.finish()
                await migration.run()
                return nil
            }
            for await _ in started {}
            defer { group.cancelAll() }
            do {
                try await Schema.migrate(migration, logger: logger)
                return try await Schema.identity(migration, logger: logger)
            } catch { throw postgres.explain(error) }
        }
        let database = Database(configuration: configuration, leaseTimeout: limits.databaseTimeout, metrics: metrics, logger: logger)
        var listen = postgres.connectionConfiguration
        listen.options.connectTimeout = .seconds(2)
        var users: JWTUsers?
        if let jwt { users = try await JWTUsers(configuration: jwt) }
        let notifier = Notifier()
        let routes = Routes(database: database, identity: identity, notifier: notifier, logger: logger, pullPageBytes: limits.pullPageBytes,
                            users: users, metrics: metrics, connections: ConnectionCounts(limit: limits.maxConnectionsPerAddress),
                            connectionEnds: ConnectionEnds(),
                            requestLimits: RequestLimits(perUser: limits.maxRequestsPerUser, perSpace: limits.maxRequestsPerSpace),
                            retryAfter: limits.retryAfter, rules: rules)
        return SyncService(routes: routes, database: database, notifier: notifier, listen: listen, logger: logger)
    }

    /// The operator's listener: `GET /metrics`, the Prometheus text of ``metrics``.
    private func metricsApplication(port: Int) -> some Service {
        let router = Router()
        let metrics = self.metrics
        router.get("metrics") { _, _ in
            Response(status: .ok, headers: [.contentType: "text/plain; version=0.0.4; charset=utf-8"],
                     body: .init(byteBuffer: ByteBuffer(bytes: metrics.text())))
        }
        let onListening = onMetricsListening
        return Application(
            router: router,
            configuration: .init(address: .hostname(metricsHost, port: port), serverName: "swidux-sync-server-metrics"),
            onServerRunning: { channel in await onListening(channel.localAddress?.port ?? 0) },
            logger: logger)
    }

    private static func timeAmount(_ duration: Duration) -> TimeAmount {
        let (seconds, attoseconds) = duration.components
        return .nanoseconds(seconds * 1_000_000_000 + attoseconds / 1_000_000_000)
    }
}
