import ArgumentParser
import Foundation
import Logging
import NIOSSL
import PostgresNIO
import SwiduxSyncServer
import SwiduxSyncWire

/// `swidux-sync-server`: the sync server of Swidux (README, "Sync server").
@main
struct SwiduxSyncServerCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "swidux-sync-server",
        abstract: "The Swidux sync server: PostgreSQL is the server of record.",
        subcommands: [Serve.self, Token.self, Space.self])
}

/// Options every subcommand shares.
///
/// `--postgres` is required, but checked when the command runs rather than by the parser or
/// `validate()`: both come before the check for unknown options, so `serve --bogus` said
/// "missing --postgres" instead of naming `--bogus`.
struct DatabaseOptions: ParsableArguments {
    @Option(help: "The PostgreSQL database (required): postgres://user[:password]@host[:port]/database (or ...@/database?host=/socket/dir).")
    var postgres: String?

    func url() throws -> PostgresURL {
        guard let postgres else {
            throw ValidationError("missing --postgres <url>: the PostgreSQL database, postgres://user[:password]@host[:port]/database")
        }
        do { return try PostgresURL(postgres) } catch { throw ValidationError("\(error)") }
    }
}

struct Serve: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Migrate the schema, then serve push and pull over HTTP, or HTTPS with --tls-certificate and --tls-key.",
        discussion: """
            Without --tls-certificate and --tls-key the server speaks plain http: put it behind a \
            TLS-terminating proxy, or keep it on a trusted network. With them it serves https itself; \
            clients whose system does not trust the certificate's CA are given it (todos --sync-ca-file).
            """)

    @OptionGroup var database: DatabaseOptions
    @Option(help: "The address to listen on.") var host = "127.0.0.1"
    @Option(help: "The port to listen on (required; 0: any free port, the one chosen is printed).") var port: Int?
    @Option(help: "Seconds a request waits for a database connection before it is answered 503 (the database is unavailable).")
    var databaseTimeout: Double = 4
    @Option(help: "About how many bytes of rows a pull page holds, at most 16 MiB (a page always holds at least one row).")
    var pullPageBytes = 4 << 20
    @Option(help: "Seconds a connection may stay idle (before a request, between requests, inside a request's head or a TLS handshake) before it is closed.")
    var idleTimeout: Double = 30
    @Option(help: "Seconds a request's body may take to arrive in full after its head.")
    var requestTimeout: Double = 60
    @Option(help: "The most connections one client address may have open that have not yet made an authenticated request; more are admitted on probation: closed without a request head within 2 s or a token in it, answered 429 and closed when the token is refused.")
    var maxConnectionsPerAddress = 64
    @Option(help: "The most requests (long polls included) one user (a JWT's subject, or an opaque token) may have in flight; more are answered 429 with Retry-After.")
    var maxRequestsPerUser = 64
    @Option(help: "The most requests one space may have in flight, all its users together; more are answered 429 with Retry-After.")
    var maxRequestsPerSpace = 1024
    @Option(help: "Seconds a 429 answer's Retry-After (and a 503's while PostgreSQL does not answer) asks the client to wait (whole seconds, at least 1).")
    var retryAfter = 5
    @Option(help: ArgumentHelp("Serve https with this certificate chain (PEM: the server's certificate first); with --tls-key.", valueName: "file"))
    var tlsCertificate: String?
    @Option(help: ArgumentHelp("The private key (PEM) of --tls-certificate.", valueName: "file"))
    var tlsKey: String?
    @Option(help: ArgumentHelp("Accept JSON Web Tokens signed with these keys (a JWKS file, RFC 7517: oct for an HS256 secret, RSA, EC, OKP); each user gets a personal space.", valueName: "file"))
    var jwtKeys: String?
    @Option(help: ArgumentHelp("The iss every JWT must have (with --jwt-keys).", valueName: "issuer"))
    var jwtIssuer: String?
    @Option(help: ArgumentHelp("A value every JWT's aud must hold (with --jwt-keys).", valueName: "audience"))
    var jwtAudience: String?
    @Option(help: ArgumentHelp("Serve Prometheus metrics at GET /metrics on this port (0: any free port, printed), apart from the sync routes.", valueName: "n"))
    var metricsPort: Int?
    @Option(help: "The address of the metrics port.") var metricsHost = "127.0.0.1"

    func validate() throws {
        for (name, value) in [("--database-timeout", databaseTimeout), ("--idle-timeout", idleTimeout), ("--request-timeout", requestTimeout)] {
            guard value > 0, value <= 86_400 else {
                throw ValidationError("\(name) must be a number of seconds above 0 and at most 86400, not \(value)")
            }
        }
        if let metricsPort, !(0...65535).contains(metricsPort) {
            throw ValidationError("--metrics-port must be a port number (0 to 65535), not \(metricsPort)")
        }
        for (name, value) in [("--max-connections-per-address", maxConnectionsPerAddress), ("--max-requests-per-user", maxRequestsPerUser),
                              ("--max-requests-per-space", maxRequestsPerSpace)] where value <= 0 {
            throw ValidationError("\(name) must be positive, not \(value)")
        }
        guard retryAfter > 0, retryAfter <= 86_400 else {
            throw ValidationError("--retry-after must be a number of seconds above 0 and at most 86400, not \(retryAfter)")
        }
        // A page with its last row must fit the answer a client reads (twice a push's bound).
        guard pullPageBytes > 0, pullPageBytes <= SyncProtocol.maxBodyBytes else {
            throw ValidationError("--pull-page-bytes must be positive and at most \(SyncProtocol.maxBodyBytes), not \(pullPageBytes)")
        }
    }

    /// The server's TLS settings from --tls-certificate and --tls-key; nil for http.
    ///
    /// Checked when the command runs, like --postgres, so that an unknown option is named first.
    func tls() throws -> TLSConfiguration? {
        guard (tlsCertificate == nil) == (tlsKey == nil) else {
            throw ValidationError("--tls-certificate and --tls-key go together: pass both for https, neither for http")
        }
        guard let tlsCertificate, let tlsKey else { return nil }
        let chain: [NIOSSLCertificate], key: NIOSSLPrivateKey
        do {
            chain = try NIOSSLCertificate.fromPEMFile(tlsCertificate)
        } catch {
            throw ValidationError("--tls-certificate \(tlsCertificate): not a readable PEM certificate file (\(error))")
        }
        guard !chain.isEmpty else { throw ValidationError("--tls-certificate \(tlsCertificate) holds no certificate") }
        do {
            key = try NIOSSLPrivateKey(file: tlsKey, format: .pem)
        } catch {
            throw ValidationError("--tls-key \(tlsKey): not a readable PEM private key file (\(error))")
        }
        return TLSConfiguration.makeServerConfiguration(certificateChain: chain.map { .certificate($0) }, privateKey: .privateKey(key))
    }

    /// The JWT settings from --jwt-keys, --jwt-issuer and --jwt-audience; nil without --jwt-keys.
    func jwt() throws -> JWTConfiguration? {
        guard let jwtKeys else {
            if jwtIssuer != nil || jwtAudience != nil {
                throw ValidationError("--jwt-issuer and --jwt-audience need --jwt-keys (the keys that sign the tokens)")
            }
            return nil
        }
        let data: Data
        do {
            data = try Data(contentsOf: URL(fileURLWithPath: jwtKeys))
        } catch {
            throw ValidationError("--jwt-keys \(jwtKeys): the file cannot be read (\(error.localizedDescription))")
        }
        do {
            return try JWTConfiguration(jwks: data, issuer: jwtIssuer, audience: jwtAudience)
        } catch {
            throw ValidationError("--jwt-keys \(jwtKeys): \(error)")
        }
    }

    /// The limits the options give.
    func limits() -> SyncServerLimits {
        SyncServerLimits(databaseTimeout: .milliseconds(Int64(databaseTimeout * 1000)), pullPageBytes: pullPageBytes,
                         idleTimeout: .milliseconds(Int64(idleTimeout * 1000)), requestTimeout: .milliseconds(Int64(requestTimeout * 1000)),
                         maxConnectionsPerAddress: maxConnectionsPerAddress, maxRequestsPerUser: maxRequestsPerUser,
                         maxRequestsPerSpace: maxRequestsPerSpace, retryAfter: .seconds(retryAfter))
    }

    func run() async throws {
        var logger = Logger(label: "swidux-sync-server")
        logger.logLevel = ProcessInfo.processInfo.environment["LOG_LEVEL"].flatMap(Logger.Level.init(rawValue:)) ?? .notice
        let postgres = try database.url()
        // Required, checked here so that an unknown option is named first (see DatabaseOptions).
        guard let port else { throw ValidationError("missing --port <n>: the port to listen on (0: any free port)") }
        let tls = try tls()
        var server = SyncServer(postgres: postgres, host: host, port: port, limits: limits(), tls: tls, jwt: try jwt(), logger: logger)
        server.metricsPort = metricsPort
        server.metricsHost = metricsHost
        let metricsHost = self.metricsHost
        server.onMetricsListening = { port in
            FileHandle.standardOutput.write(Data("swidux-sync-server: metrics on http://\(metricsHost):\(port)/metrics\n".utf8))
        }
        let host = self.host
        let scheme = tls == nil ? "http" : "https"
        try await server.run(stopOnSignals: true) { port in
            // Tests and scripts read this line to learn the port.
            FileHandle.standardOutput.write(Data("swidux-sync-server: listening on \(scheme)://\(host):\(port)\n".utf8))
        }
    }
}

struct Token: AsyncParsableCommand {
    static let configuration = CommandConfiguration(abstract: "Create or revoke bearer tokens.", subcommands: [Create.self, Revoke.self])

    struct Create: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Print a new token for a space (creating the space).")
        @OptionGroup var database: DatabaseOptions
        @Option(help: "The space the token reads and writes.") var space: String

        func run() async throws {
            let token = try await withClient(database) { client, logger in
                try await Tokens.create(space: space, client: client, logger: logger)
            }
            print(token)
        }
    }

    struct Revoke: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Revoke a token: it gets 401 from now on.",
            discussion: "The token comes from --token, else SWIDUX_SYNC_TOKEN, else the first line of standard input (so that it need not appear in `ps`).")
        @OptionGroup var database: DatabaseOptions
        @Option(help: "The token to revoke (default: $SWIDUX_SYNC_TOKEN, else a line read from standard input).") var token: String?

        func run() async throws {
            let token = try resolvedToken()
            try await withClient(database) { client, logger in
                try await Tokens.revoke(token, client: client, logger: logger)
            }
            print("revoked")
        }

        private func resolvedToken() throws -> String {
            if let token, !token.isEmpty { return token }
            if let token = ProcessInfo.processInfo.environment["SWIDUX_SYNC_TOKEN"], !token.isEmpty { return token }
            guard let line = readLine(strippingNewline: true)?.trimmingCharacters(in: .whitespaces), !line.isEmpty else {
                throw ValidationError("no token to revoke: pass --token, set SWIDUX_SYNC_TOKEN, or write it on standard input")
            }
            return line
        }
    }
}

/// Runs `body` with a connection pool to the database, after migrating its schema.
func withClient<T: Sendable>(_ database: DatabaseOptions,
                             _ body: @Sendable (PostgresClient, Logger) async throws -> T) async throws -> T {
    var logger = Logger(label: "swidux-sync-server")
    logger.logLevel = .warning
    let url = try database.url()
    try await url.checkReachable(logger: logger)
    var configuration = url.clientConfiguration
    configuration.options.connectTimeout = .seconds(5)
    // The pool's own logger stays quiet: a command may lease its first connection before
    // `run()` has started (a harmless race the pool logs as a warning);
    // real failures reach the queries and are reported from there.
    var background = logger
    background.logLevel = .error
    let client = PostgresClient(configuration: configuration, backgroundLogger: background)
    return try await withThrowingTaskGroup(of: T?.self) { group in
        group.addTask { await client.run(); return nil }
        defer { group.cancelAll() }
        do {
            try await Schema.migrate(client, logger: logger)
            return try await body(client, logger)
        } catch {
            throw url.explain(error)
        }
    }
}
