import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import GRDB
import PostgresTestSupport
import SwiduxSQLite
import SwiduxSync
import SwiduxSyncWire

/// A parent, and a child with a foreign key to it (ON DELETE CASCADE), in plain SQL.
enum Schema {
    static let tables = [SyncTable(name: "parent"), SyncTable(name: "child")]
    static let migrations = SwiduxMigrations { m in
        m.register("v1") { db in
            try db.execute(sql: """
                CREATE TABLE parent (id TEXT PRIMARY KEY NOT NULL, position INTEGER NOT NULL DEFAULT 0, name TEXT NOT NULL);
                CREATE TABLE child (id TEXT PRIMARY KEY NOT NULL, position INTEGER NOT NULL DEFAULT 0,
                                    parentId TEXT NOT NULL REFERENCES parent(id) ON DELETE CASCADE, text TEXT NOT NULL);
                CREATE INDEX child_parent ON child(parentId);
                """)
        }
    }
}

/// Table → id → columns (the id excluded), as compared across clients and the server.
typealias Snapshot = [String: [String: [String: SyncValue]]]

func syncValue(_ value: DatabaseValue) -> SyncValue {
    switch value.storage {
    case .null: .null
    case .int64(let value): .integer(value)
    case .double(let value): .real(value)
    case .string(let value): .text(value)
    case .blob(let value): .blob(value)
    }
}

/// A client: its own SQLite file and a SyncClient.
struct Device {
    let name: String
    let database: SwiduxDatabase
    let client: SyncClient

    init(name: String, directory: URL, server: URL, token: String, pageSize: Int = 1000,
         trustedCertificates: SyncTrustedCertificates? = nil, retry: SyncRetryPolicy = .standard) throws {
        self.name = name
        database = try SwiduxDatabase(path: directory.appendingPathComponent("\(name).sqlite").path, migrations: Schema.migrations)
        client = try SyncClient(database: database, server: server, token: token, tables: Schema.tables, pageSize: pageSize,
                                trustedCertificates: trustedCertificates, retry: retry)
    }

    /// One local transaction, like a flush (foreign keys checked at the commit).
    func write(_ body: @escaping @Sendable (Database) throws -> Void) async throws {
        try await database.performAtomically([body])
    }

    func snapshot() async throws -> Snapshot {
        try await database.writer.read { db in
            var snapshot: Snapshot = [:]
            for table in ["parent", "child"] {
                var rows: [String: [String: SyncValue]] = [:]
                for row in try Row.fetchAll(db, sql: "SELECT * FROM \(table)") {
                    var columns: [String: SyncValue] = [:]
                    for (name, value) in row where name != "id" { columns[name] = syncValue(value) }
                    rows[SyncValue.text(row["id"] as String).key] = columns
                }
                snapshot[table] = rows
            }
            return snapshot
        }
    }
}

/// The server's live rows, read over the wire from cursor 0.
func serverSnapshot(server: URL, token: String) async throws -> Snapshot {
    var snapshot: Snapshot = ["parent": [:], "child": [:]]
    var cursor: Int64 = 0
    while true {
        var components = URLComponents(url: server.appendingPathComponent(SyncProtocol.pullPath), resolvingAgainstBaseURL: false)!
        components.queryItems = [URLQueryItem(name: "after", value: String(cursor)), URLQueryItem(name: "limit", value: "10000")]
        var request = URLRequest(url: components.url!)
        request.setValue("Bearer \(token)", forHTTPHeaderField: "Authorization")
        let (data, _) = try await URLSession.shared.data(for: request)
        let page = try JSONDecoder().decode(PullResponse.self, from: data)
        for row in page.rows {
            snapshot[row.table, default: [:]][row.id.key] = row.deleted ? nil : row.columns
        }
        cursor = page.cursor
        if !page.hasMore { return snapshot }
    }
}

/// A cluster database, a token and a running server, stopped by `stop()`.
struct SyncServerFixture {
    let postgres: String
    let token: String
    let server: ServerProcess

    static func start(space: String = "e2e") async throws -> SyncServerFixture {
        let postgres = try await PostgresCluster.shared().createDatabase()
        let token = try await ServerProcess.createToken(postgres: postgres, space: space)
        let server = try await ServerProcess.start(postgres: postgres)
        return SyncServerFixture(postgres: postgres, token: token, server: server)
    }

    func stop() async { await server.stop() }
}

/// A reproducible random sequence (SplitMix64).
func temporaryDirectory() throws -> URL {
    let url = FileManager.default.temporaryDirectory.appendingPathComponent("swidux-sync-e2e-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    return url
}
