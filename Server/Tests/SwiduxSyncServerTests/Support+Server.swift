import Foundation
import Logging
import PostgresNIO
import PostgresTestSupport
import SwiduxSyncServer
import SwiduxSyncWire
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// A sync server running in this process on its own fresh database of the shared
/// throwaway cluster, on a free loopback port.
final class TestServer: Sendable {
    let database: String
    let port: Int
    let cluster: PostgresCluster
    private let task: Task<Void, any Error>

    var url: URL { URL(string: "http://127.0.0.1:\(port)")! }

    private init(database: String, port: Int, cluster: PostgresCluster, task: Task<Void, any Error>) {
        self.database = database
        self.port = port
        self.cluster = cluster
        self.task = task
    }

    static func start(jwt: JWTConfiguration? = nil, metricsPort: Int? = nil, rules: SyncRules = SyncRules()) async throws -> TestServer {
        let cluster = try await PostgresCluster.shared()
        let database = try await cluster.createDatabase()
        var logger = Logger(label: "test-sync-server")
        logger.logLevel = .critical   // cancelling the server at the end logs harmless errors
        let (port, task) = try await {
            var server = SyncServer(postgres: try PostgresURL(database), port: 0, jwt: jwt, logger: logger)
            server.metricsPort = metricsPort
            server.rules = rules
            return try await server.start()
        }()
        return TestServer(database: database, port: port, cluster: cluster, task: task)
    }

    func stop() async {
        task.cancel()
        _ = await task.result
    }

    /// Runs `body` against a fresh server, stopped after.
    static func with<T: Sendable>(jwt: JWTConfiguration? = nil, metricsPort: Int? = nil, rules: SyncRules = SyncRules(),
                                  _ body: (TestServer) async throws -> T) async throws -> T {
        let server = try await start(jwt: jwt, metricsPort: metricsPort, rules: rules)
        do {
            let result = try await body(server)
            await server.stop()
            return result
        } catch {
            await server.stop()
            throw error
        }
    }

    /// A new token for `space` (made by the real `token create` command).
    func token(space: String) async throws -> String {
        try await ServerProcess.createToken(postgres: database, space: space)
    }

    /// A client of `space` with a new token, its tables declared.
    func client(space: String, tables: [String] = ["todo", "list"], id: String = UUID().uuidString) async throws -> SyncHTTP {
        let client = SyncHTTP(base: url, token: try await token(space: space), clientID: id)
        try await client.declare(tables)
        return client
    }

    /// Every stored row, as `space name|table|rid|version|deleted|columns`, in version order.
    func storedRows() async throws -> [String] {
        try await cluster.withConnection(database: database) { connection, logger in
            var rows: [String] = []
            let query: PostgresQuery = """
                SELECT s.name, r.tbl, r.rid, r.version, r.deleted, coalesce(r.columns::text, '')
                FROM sync_rows r JOIN sync_spaces s ON s.id = r.space ORDER BY r.version
                """
            for try await (space, table, rid, version, deleted, columns) in try await connection.query(query, logger: logger)
                .decode((String, String, String, Int64, Bool, String).self) {
                rows.append("\(space)|\(table)|\(rid)|\(version)|\(deleted)|\(columns)")
            }
            return rows
        }
    }

    /// A whole snapshot of the server's state tables (rows, clients, tables), to show that a
    /// refused request wrote nothing.
    func snapshot() async throws -> [String] {
        var lines = try await storedRows()
        try await cluster.withConnection(database: database) { connection, logger in
            for try await (space, client, last) in try await connection.query(
                "SELECT space, client_id, last_mutation FROM sync_clients ORDER BY 1, 2", logger: logger
            ).decode((Int64, String, Int64).self) { lines.append("client \(space) \(client) \(last)") }
            for try await (space, table) in try await connection.query(
                "SELECT space, tbl FROM sync_tables ORDER BY 1, 2", logger: logger
            ).decode((Int64, String).self) { lines.append("table \(space) \(table)") }
            for try await value in try await connection.query(
                "SELECT last_value FROM sync_version", logger: logger
            ).decode(Int64.self) { lines.append("sequence \(value)") }
        }
        return lines
    }
}
