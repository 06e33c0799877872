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
    /// `onListening` gets the bound port once requests are accepted.
    ///
    /// ```swift
    /// try await server.run(stopOnSignals: true) { print("port \($0)") }
    /// ```
    public func run(stopOnSignals: Bool = false, onListening: @escaping @Sendable (Int) async -> Void = { _ in }) async throws {
        var configuration = postgres.clientConfiguration
        configuration.options.connectTimeout = .seconds(5)
        let logger = self.logger
        try await postgres.checkReachable(logger: logger)
        let metrics = self.metrics
        let database = Database(configuration: configuration, leaseTimeout: limits.databaseTimeout, metrics: metrics, logger: logger)
        let notifier = Notifier()
        try await withThrowingTaskGroup(of: Void.self) { group in
            // The pool runs before the migration leases from it (PostgresNIO warns of a lease
            // from a client whose run() has not been called yet).
            let (started, starting) = AsyncStream.makeStream(of: Void.self)
            group.addTask { await database.run(onStart: { starting.finish() }) }
            for await _ in started {}
            let identity: String
            do {
                try await Schema.migrate(database.client, logger: logger)
                identity = try await Schema.identity(database.client, logger: logger)
            } catch { throw postgres.explain(error) }
            var listen = postgres.connectionConfiguration
            listen.options.connectTimeout = .seconds(2)
            group.addTask { await notifier.run(configuration: listen, database: database, logger: logger) }
            let router = Router(context: SyncRequestContext.self)
            var users: JWTUsers?
            if let jwt { users = try await JWTUsers(configuration: jwt) }
            let counts = ConnectionCounts(limit: limits.maxConnectionsPerAddress)
            let ends = ConnectionEnds()
            Routes(database: database, identity: identity, notifier: notifier, logger: logger, pullPageBytes: limits.pullPageBytes,
                   users: users, metrics: metrics, connections: counts, connectionEnds: ends,
                   requestLimits: RequestLimits(perUser: limits.maxRequestsPerUser, perSpace: limits.maxRequestsPerSpace),
                   retryAfter: limits.retryAfter)
                .add(to: router)
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
            var services: [any Service] = [app, ShutdownHook { await notifier.close() }]
            if let metricsPort { services.append(metricsApplication(port: metricsPort)) }
            // On SIGTERM the hook ends open long polls first, then the application drains.
            let serviceGroup = ServiceGroup(configuration: .init(
                services: services,
                gracefulShutdownSignals: stopOnSignals ? [.sigterm, .sigint] : [],
                logger: logger))
            group.addTask { try await serviceGroup.run() }
            defer { group.cancelAll() }
            try await group.next()
        }
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
