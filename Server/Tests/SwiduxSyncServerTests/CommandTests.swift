import Foundation
import Logging
import PostgresNIO
import PostgresTestSupport
import SwiduxSyncServer
import SwiduxTestSupport
import Testing

@Suite("Commands and schema")
struct CommandTests {
    @Test("token create prints 64 hex digits; only its SHA-256 is stored; revoke marks it")
    func tokens() async throws {
        let cluster = try await PostgresCluster.shared()
        let database = try await cluster.createDatabase()
        let token = try await ServerProcess.createToken(postgres: database, space: "family")
        #expect(token.count == 64 && token.allSatisfy(\.isHexDigit))
        let second = try await ServerProcess.createToken(postgres: database, space: "family")
        #expect(second != token)
        try await ServerProcess.revokeToken(postgres: database, token: token)
        let stored = try await cluster.withConnection(database: database) { connection, logger in
            var rows: [(String, Bool, Bool)] = []
            for try await row in try await connection.query("""
                SELECT s.name, t.hash = sha256(convert_to(\(token), 'UTF8')), t.revoked
                FROM sync_tokens t JOIN sync_spaces s ON s.id = t.space ORDER BY t.created
                """, logger: logger).decode((String, Bool, Bool).self) { rows.append(row) }
            var plain = 0
            for try await count in try await connection.query(
                "SELECT count(*)::bigint FROM sync_tokens WHERE position(convert_to(\(token), 'UTF8') in hash) > 0 OR encode(hash, 'hex') = \(token)",
                logger: logger
            ).decode(Int64.self) { plain = Int(count) }
            return (rows, plain)
        }
        #expect(stored.0.map(\.0) == ["family", "family"])
        #expect(stored.0.map(\.1) == [true, false])
        #expect(stored.0.map(\.2) == [true, false])
        #expect(stored.1 == 0)
    }

    @Test("a bad --postgres URL and an unreachable database are errors that say so")
    func badDatabase() async throws {
        let executable = try ServerProcess.executable()
        let bad = try await ChildProcess.capture([executable, "token", "create", "--postgres", "mysql://x@h/db", "--space", "s"])
        #expect(bad.status != 0)
        #expect(bad.stderr.contains("invalid PostgreSQL URL") && bad.stderr.contains("postgres://"), "\(bad.stderr)")
        let port = try PostgresCluster.freePort()
        let unreachable = try await ChildProcess.capture([executable, "serve", "--postgres", "postgres://u@127.0.0.1:\(port)/db", "--port", "0"])
        #expect(unreachable.status != 0)
        #expect(unreachable.stderr.contains("cannot reach PostgreSQL"), "\(unreachable.stderr)")
        #expect(!unreachable.stdout.contains("listening"))
    }

    @Test("an unknown option is named before a missing required one; a missing one is named")
    func unknownOptionIsNamed() async throws {
        let executable = try ServerProcess.executable()
        let bogus = try await ChildProcess.capture([executable, "serve", "--bogus"])
        #expect(bogus.status != 0)
        #expect(bogus.stderr.contains("--bogus"), "\(bogus.stderr)")
        #expect(!bogus.stderr.contains("--postgres <url>"), "\(bogus.stderr)")
        let missing = try await ChildProcess.capture([executable, "serve", "--port", "0"])
        #expect(missing.status != 0)
        #expect(missing.stderr.contains("missing --postgres <url>"), "\(missing.stderr)")
        let noPort = try await ChildProcess.capture([executable, "serve", "--postgres", "postgres://u@127.0.0.1/db"])
        #expect(noPort.status != 0)
        #expect(noPort.stderr.contains("missing --port <n>"), "\(noPort.stderr)")
    }

    @Test("serve's https options: listed by --help, one without the other refused, an unreadable file named")
    func tlsOptions() async throws {
        let executable = try ServerProcess.executable()
        let help = try await ChildProcess.capture([executable, "serve", "--help"])
        #expect(help.status == 0)
        #expect(help.stdout.contains("--tls-certificate <file>") && help.stdout.contains("--tls-key <file>"), "\(help.stdout)")
        // Checked before PostgreSQL is reached: nothing listens on this database's port.
        let port = try PostgresCluster.freePort()
        let postgres = "postgres://u@127.0.0.1:\(port)/db"
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("tls-options-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let notPEM = directory.appendingPathComponent("not.pem")
        try "not a certificate".write(to: notPEM, atomically: true, encoding: .utf8)

        let keyOnly = try await ChildProcess.capture([executable, "serve", "--postgres", postgres, "--port", "0", "--tls-key", notPEM.path])
        #expect(keyOnly.status != 0)
        #expect(keyOnly.stderr.contains("--tls-certificate and --tls-key go together"), "\(keyOnly.stderr)")
        let missing = directory.appendingPathComponent("missing.pem").path
        let unreadable = try await ChildProcess.capture([executable, "serve", "--postgres", postgres, "--port", "0",
                                                                 "--tls-certificate", missing, "--tls-key", notPEM.path])
        #expect(unreadable.status != 0)
        #expect(unreadable.stderr.contains("--tls-certificate \(missing)"), "\(unreadable.stderr)")
        let garbage = try await ChildProcess.capture([executable, "serve", "--postgres", postgres, "--port", "0",
                                                              "--tls-certificate", notPEM.path, "--tls-key", notPEM.path])
        #expect(garbage.status != 0)
        #expect(garbage.stderr.contains("--tls-certificate \(notPEM.path)"), "\(garbage.stderr)")
        for result in [keyOnly, unreadable, garbage] {
            #expect(!result.stdout.contains("listening"))
            #expect(!result.stderr.contains("cannot reach PostgreSQL"), "\(result.stderr)")
        }
        let bigPage = try await ChildProcess.capture([executable, "serve", "--postgres", postgres, "--port", "0",
                                                              "--pull-page-bytes", String(32 << 20)])
        #expect(bigPage.status != 0)
        #expect(bigPage.stderr.contains("--pull-page-bytes must be positive and at most"), "\(bigPage.stderr)")
    }

    @Test("serve's JWT options: listed by --help, an unreadable or unusable key set named, issuer without keys refused")
    func jwtOptions() async throws {
        let executable = try ServerProcess.executable()
        let help = try await ChildProcess.capture([executable, "serve", "--help"])
        #expect(help.stdout.contains("--jwt-keys <file>") && help.stdout.contains("--jwt-issuer <issuer>")
                && help.stdout.contains("--jwt-audience <audience>"), "\(help.stdout)")
        // Checked before PostgreSQL is reached: nothing listens on this database's port.
        let postgres = "postgres://u@127.0.0.1:\(try PostgresCluster.freePort())/db"
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("jwt-options-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let weak = directory.appendingPathComponent("weak.json")
        try #"{"keys":[{"kty":"oct","kid":"a","k":"c2VjcmV0"}]}"#.write(to: weak, atomically: true, encoding: .utf8)
        let missing = directory.appendingPathComponent("missing.json").path
        let cases: [([String], String)] = [
            (["--jwt-issuer", "https://auth.example"], "--jwt-issuer and --jwt-audience need --jwt-keys"),
            (["--jwt-keys", missing], "--jwt-keys \(missing): the file cannot be read"),
            (["--jwt-keys", weak.path], "JWT key \"a\": the HMAC secret has 6 bytes; at least 32 are needed"),
        ]
        for (options, message) in cases {
            let result = try await ChildProcess.capture([executable, "serve", "--postgres", postgres, "--port", "0"] + options)
            #expect(result.status != 0)
            #expect(result.stderr.contains(message), "\(options): \(result.stderr)")
            #expect(!result.stderr.contains("cannot reach PostgreSQL"), "\(result.stderr)")
        }
    }

    @Test("serve's per-user and per-space limits: listed by --help, a value that is not positive refused")
    func requestLimitOptions() async throws {
        let executable = try ServerProcess.executable()
        let help = try await ChildProcess.capture([executable, "serve", "--help"])
        for option in ["--max-requests-per-user <max-requests-per-user>", "--max-requests-per-space <max-requests-per-space>",
                       "--retry-after <retry-after>"] {
            #expect(help.stdout.contains(option), "\(option): \(help.stdout)")
        }
        let postgres = "postgres://u@127.0.0.1:\(try PostgresCluster.freePort())/db"
        let cases: [([String], String)] = [
            (["--max-requests-per-user", "0"], "--max-requests-per-user must be positive, not 0"),
            (["--max-requests-per-space", "0"], "--max-requests-per-space must be positive, not 0"),
            (["--retry-after", "0"], "--retry-after must be a number of seconds above 0"),
        ]
        for (options, message) in cases {
            let result = try await ChildProcess.capture([executable, "serve", "--postgres", postgres, "--port", "0"] + options)
            #expect(result.status != 0)
            #expect(result.stderr.contains(message), "\(options): \(result.stderr)")
        }
    }

    @Test("a server start logs no warning (the pool runs before the migration leases from it)")
    func startLogsNoWarning() async throws {
        let cluster = try await PostgresCluster.shared()
        let server = try await ServerProcess.start(postgres: try await cluster.createDatabase())
        #expect(await server.stop() == 0)
        let log = server.child.standardOutput + server.child.standardError
        #expect(!log.contains("hasn't been called yet"), "\(log)")
    }

    @Test("migrations are idempotent and safe when servers start at once")
    func concurrentMigrations() async throws {
        let cluster = try await PostgresCluster.shared()
        let url = try PostgresURL(try await cluster.createDatabase())
        let logger = { var logger = Logger(label: "test"); logger.logLevel = .error; return logger }()
        let client = PostgresClient(configuration: url.clientConfiguration, backgroundLogger: logger)
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask { await client.run() }
            try await withThrowingTaskGroup(of: Void.self) { migrations in
                for _ in 0..<4 { migrations.addTask { try await Schema.migrate(client, logger: logger) } }
                try await migrations.waitForAll()
            }
            try await Schema.migrate(client, logger: logger)
            var versions: [Int] = []
            for try await version in try await client.query("SELECT version FROM sync_schema", logger: logger).decode(Int.self) {
                versions.append(version)
            }
            // The first schema, then: mutations and identity; no sync_rows foreign key and a version default; merges by column; JWT users; space members; refusal reasons kept for replays.
            #expect(versions == [8])
            var foreignKeys = -1
            for try await count in try await client.query(
                "SELECT count(*)::int FROM pg_constraint WHERE conrelid = 'sync_rows'::regclass AND contype = 'f'", logger: logger
            ).decode(Int.self) { foreignKeys = count }
            #expect(foreignKeys == 0)   // a check query per written row (issue 31 item 3)
            group.cancelAll()
        }
    }

    @Test("PostgresURL parses TCP and socket forms and names what is wrong")
    func urls() throws {
        let tcp = try PostgresURL("postgres://me:p%40ss@db.example:6543/app")
        #expect(tcp.host == "db.example" && tcp.port == 6543 && tcp.username == "me" && tcp.password == "p@ss" && tcp.database == "app")
        #expect(!tcp.description.contains("p@ss"))
        let socket = try PostgresURL("postgresql://me@/app?host=/run/postgresql")
        #expect(socket.socketDirectory == "/run/postgresql" && socket.host == nil && socket.port == 5432)
        for (text, cause) in [("postgres://db/app", "no user name"), ("postgres://me@db/", "no database"),
                              ("http://me@db/app", "scheme"), ("postgres://me@db/app?sslmode=require", "unsupported parameter")] {
            #expect { try PostgresURL(text) } throws: { "\($0)".contains(cause) }
        }
    }
}
