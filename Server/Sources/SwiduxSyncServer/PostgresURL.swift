import Foundation
import Logging
import PostgresNIO

/// Where the server's PostgreSQL database is, parsed from a connection URL.
///
/// Forms: `postgres://user[:password]@host[:port]/database` (TCP) and
/// `postgres://user@/database?host=/run/postgresql` (a Unix socket in that directory; the
/// port, default 5432, names the socket file). TLS is not used (`sslmode=disable` is the
/// only accepted mode): run the server next to its database or on a private network.
///
/// ```swift
/// let url = try PostgresURL("postgres://swidux:secret@127.0.0.1:5432/swidux")
/// let client = PostgresClient(configuration: url.clientConfiguration)
/// ```
public struct PostgresURL: Sendable, Hashable, CustomStringConvertible {
    /// The host name or address (TCP), or `nil` for a Unix socket.
    public var host: String?
    /// The TCP port, or the Unix socket's number.
    public var port: Int
    /// The socket directory, for a Unix socket.
    public var socketDirectory: String?
    /// The role to connect as.
    public var username: String
    /// The role's password, if any.
    public var password: String?
    /// The database.
    public var database: String

    /// Parses `url`; throws a ``SyncServerError`` naming what is wrong with it.
    ///
    /// ```swift
    /// let url = try PostgresURL("postgresql://app@/app?host=/tmp/pg")
    /// ```
    public init(_ url: String) throws {
        func invalid(_ cause: String) -> SyncServerError {
            SyncServerError("invalid PostgreSQL URL \"\(Self.redacted(url))\": \(cause) (expected postgres://user[:password]@host[:port]/database)")
        }
        guard let components = URLComponents(string: url) else { throw invalid("not a URL") }
        guard components.scheme == "postgres" || components.scheme == "postgresql" else {
            throw invalid("the scheme must be postgres:// or postgresql://")
        }
        guard let user = components.user, !user.isEmpty else { throw invalid("no user name") }
        username = user
        password = components.password
        let path = components.path.hasPrefix("/") ? String(components.path.dropFirst()) : components.path
        guard !path.isEmpty, !path.contains("/") else { throw invalid("no database name") }
        database = path
        port = components.port ?? 5432
        var socket: String?
        for item in components.queryItems ?? [] {
            switch item.name {
            case "host": socket = item.value
            case "sslmode" where item.value == "disable": break
            default: throw invalid("unsupported parameter \"\(item.name)\"")
            }
        }
        if let socket {
            guard socket.hasPrefix("/") else { throw invalid("the host parameter must be a socket directory") }
            socketDirectory = socket
            host = nil
        } else {
            guard let name = components.host, !name.isEmpty else { throw invalid("no host (or ?host=/socket/directory)") }
            host = name
            socketDirectory = nil
        }
    }

    /// The URL with its password replaced by `***`.
    ///
    /// ```swift
    /// print(url)   // postgres://swidux:***@127.0.0.1:5432/swidux
    /// ```
    public var description: String {
        let credentials = username + (password == nil ? "" : ":***")
        if let socketDirectory { return "postgres://\(credentials)@/\(database)?host=\(socketDirectory) (port \(port))" }
        return "postgres://\(credentials)@\(host ?? ""):\(port)/\(database)"
    }

    /// The configuration of a connection pool to this database.
    ///
    /// ```swift
    /// let client = PostgresClient(configuration: url.clientConfiguration)
    /// ```
    public var clientConfiguration: PostgresClient.Configuration {
        if let socketDirectory {
            return .init(unixSocketPath: "\(socketDirectory)/.s.PGSQL.\(port)", username: username, password: password, database: database)
        }
        return .init(host: host ?? "127.0.0.1", port: port, username: username, password: password, database: database, tls: .disable)
    }

    /// The configuration of a single connection to this database.
    ///
    /// ```swift
    /// let connection = try await PostgresConnection.connect(configuration: url.connectionConfiguration, id: 1, logger: logger)
    /// ```
    public var connectionConfiguration: PostgresConnection.Configuration {
        if let socketDirectory {
            return .init(unixSocketPath: "\(socketDirectory)/.s.PGSQL.\(port)", username: username, password: password, database: database)
        }
        return .init(host: host ?? "127.0.0.1", port: port, username: username, password: password, database: database, tls: .disable)
    }

    /// `error` from connecting to this database, as a ``SyncServerError`` naming the URL
    /// (without its password) and the cause.
    ///
    /// ```swift
    /// do { try await Schema.migrate(client, logger: logger) } catch { throw url.explain(error) }
    /// ```
    public func explain(_ error: any Error) -> any Error {
        if error is SyncServerError { return error }
        if let error = error as? PSQLError {
            if error.code == .connectionError || error.code == .serverClosedConnection || error.code == .failedToAddSSLHandler {
                let cause = error.underlying.map { "\($0)" } ?? "\(error.code)"
                return SyncServerError("cannot reach PostgreSQL at \(self): \(cause)")
            }
            if let message = error.serverInfo?[.message] {
                return SyncServerError("PostgreSQL at \(self) refused: \(message)")
            }
        }
        return SyncServerError("PostgreSQL at \(self) failed: \(String(reflecting: error))")
    }

    /// Connects once and closes again: throws "cannot reach PostgreSQL at …" (or the
    /// server's refusal) at once, where a connection pool would keep retrying.
    ///
    /// ```swift
    /// try await url.checkReachable(logger: logger)
    /// ```
    public func checkReachable(logger: Logger) async throws {
        var configuration = connectionConfiguration
        configuration.options.connectTimeout = .seconds(10)
        do {
            let connection = try await PostgresConnection.connect(configuration: configuration, id: 0, logger: logger)
            try await connection.close()
        } catch {
            throw explain(error)
        }
    }

    private static func redacted(_ url: String) -> String {
        guard var components = URLComponents(string: url), components.password != nil else { return url }
        components.password = "***"
        return components.string ?? url
    }
}
