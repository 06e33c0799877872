import Foundation
import SwiduxTestSupport
import Synchronization
import Logging
import PostgresNIO
#if canImport(Glibc)
import Glibc
#endif

/// A throwaway PostgreSQL cluster for tests and benchmarks: `initdb` in a temporary folder,
/// `postgres` on a free loopback port (`listen_addresses=127.0.0.1`, its Unix socket in the
/// folder), stopped (`pg_ctl stop -m immediate`) and removed by ``stop()``.
///
/// The programs are found under `/usr/lib/postgresql/*/bin` (Debian's `postgresql` package;
/// `scripts/setup.sh server` installs it) or `PG_BIN`. As root (CI), initdb refuses to run,
/// so every program runs as the unprivileged `postgres` user through `setpriv`, and the
/// folder is given to it. Nothing is skipped: a missing PostgreSQL is an error saying so.
///
/// ```swift
/// let cluster = try await PostgresCluster.start()
/// let url = try await cluster.createDatabase()   // postgres://postgres@127.0.0.1:<port>/db_1
/// await cluster.stop()
/// ```
public final class PostgresCluster: Sendable {
    /// The superuser role (trust authentication on loopback and the socket).
    public let username = "postgres"
    /// The port it listens on (127.0.0.1).
    public let port: Int
    /// The temporary folder (data in `data/`, socket and log beside it).
    public let folder: URL
    private let bin: URL
    private let runAs: [String]
    private let counter = Counter()

    private init(port: Int, folder: URL, bin: URL, runAs: [String]) {
        self.port = port
        self.folder = folder
        self.bin = bin
        self.runAs = runAs
    }

    /// The one cluster of this process, started on first use and stopped at exit.
    ///
    /// ```swift
    /// let url = try await PostgresCluster.shared().createDatabase()
    /// ```
    public static func shared() async throws -> PostgresCluster {
        try await SharedCluster.instance.get()
    }

    /// Starts a new cluster.
    public static func start() async throws -> PostgresCluster {
        let bin = try findBinaries()
        let folder = URL(fileURLWithPath: NSTemporaryDirectory()).appendingPathComponent("swidux-pg-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        var runAs: [String] = []
        if getuid() == 0 {
            guard let user = getpwnam("postgres") else {
                throw ProcessFailure("running as root, and initdb refuses root: the unprivileged system user `postgres` "
                                     + "(made by Debian's postgresql package; `bash scripts/setup.sh server`) is missing")
            }
            guard chown(folder.path, user.pointee.pw_uid, user.pointee.pw_gid) == 0 else {
                throw ProcessFailure("cannot give \(folder.path) to the postgres user: \(String(cString: strerror(errno)))")
            }
            runAs = ["/usr/bin/setpriv", "--reuid=postgres", "--regid=postgres", "--init-groups", "--"]
        }
        let port = try freePort()
        let cluster = PostgresCluster(port: port, folder: folder, bin: bin, runAs: runAs)
        do {
            try await cluster.tool("initdb", ["-D", cluster.data, "-U", cluster.username, "--auth=trust",
                                              "--no-sync", "-E", "UTF8", "--locale=C"])
            try await cluster.startServer()
        } catch {
            await cluster.stop()
            throw error
        }
        return cluster
    }

    /// Starts the cluster's server again after ``stopServer()`` (`pg_ctl start -w`).
    public func startServer() async throws {
        let options = "-c listen_addresses=127.0.0.1 -p \(port) -k \(folder.path) -c fsync=off -c full_page_writes=off "
            + "-c synchronous_commit=off -c max_connections=600"
        try await tool("pg_ctl", ["start", "-w", "-t", "60", "-D", data, "-l", log, "-o", options])
    }

    /// Stops the cluster's server and keeps its data (`pg_ctl stop -m fast -w`): PostgreSQL
    /// is down until ``startServer()``. Only for a cluster of the test's own (``start()``).
    public func stopServer() async throws {
        try await tool("pg_ctl", ["stop", "-m", "fast", "-w", "-D", data])
    }

    private var data: String { folder.appendingPathComponent("data").path }
    private var log: String { folder.appendingPathComponent("postgres.log").path }

    /// Creates a new empty database and returns its URL (TCP on 127.0.0.1).
    public func createDatabase() async throws -> String {
        let name = "db_\(counter.next())"
        try await withConnection(database: "postgres") { connection, logger in
            try await connection.query(PostgresQuery(unsafeSQL: "CREATE DATABASE \(name)"), logger: logger)
        }
        return url(database: name)
    }

    /// The URL of `database` in this cluster.
    public func url(database: String) -> String { "postgres://\(username)@127.0.0.1:\(port)/\(database)" }

    /// Runs `body` on a new connection to `database` (from a URL made by ``createDatabase()``
    /// or a name), closed after.
    @discardableResult
    public func withConnection<T: Sendable>(database: String, _ body: (PostgresConnection, Logger) async throws -> T) async throws -> T {
        let name = database.split(separator: "/").last.map(String.init) ?? database
        var logger = Logger(label: "postgres-cluster")
        logger.logLevel = .error
        let connection = try await PostgresConnection.connect(
            configuration: .init(host: "127.0.0.1", port: port, username: username, password: nil, database: name, tls: .disable),
            id: counter.next(), logger: logger)
        do {
            let result = try await body(connection, logger)
            try await connection.close()
            return result
        } catch {
            try? await connection.close()
            throw error
        }
    }

    /// Stops the server at once (`pg_ctl stop -m immediate`) and removes the folder.
    public func stop() async {
        _ = try? await tool("pg_ctl", ["stop", "-m", "immediate", "-w", "-D", data])
        try? FileManager.default.removeItem(at: folder)
    }

    /// ``stop()`` without concurrency, for the exit handler.
    func stopNow() {
        let command = runAs + [bin.appendingPathComponent("pg_ctl").path, "stop", "-m", "immediate", "-w", "-D", data]
        _ = ChildProcess.runBlocking(command)
        try? FileManager.default.removeItem(at: folder)
    }

    private func tool(_ name: String, _ arguments: [String]) async throws {
        let program = bin.appendingPathComponent(name).path
        let command = runAs + [program] + arguments
        var environment = ProcessInfo.processInfo.environment
        environment["LC_ALL"] = "C"
        let result = try await ChildProcess.capture(command, environment: environment)
        guard result.status == 0 else {
            let log = (try? String(contentsOfFile: log, encoding: .utf8)) ?? ""
            throw ProcessFailure("\(name) \(arguments.joined(separator: " ")) failed (status \(result.status)):\n"
                                 + result.stdout + result.stderr + (log.isEmpty ? "" : "\nserver log:\n\(log)"))
        }
    }

    private static func findBinaries() throws -> URL {
        if let bin = ProcessInfo.processInfo.environment["PG_BIN"], !bin.isEmpty { return URL(fileURLWithPath: bin) }
        let root = "/usr/lib/postgresql"
        let versions = ((try? FileManager.default.contentsOfDirectory(atPath: root)) ?? [])
            .filter { FileManager.default.isExecutableFile(atPath: "\(root)/\($0)/bin/initdb") }
            .sorted { (Int($0) ?? 0) > (Int($1) ?? 0) }
        guard let version = versions.first else {
            throw ProcessFailure("PostgreSQL's server programs (initdb, pg_ctl) were not found under \(root)/*/bin: "
                                 + "install them with `bash scripts/setup.sh server` (Debian's postgresql package), "
                                 + "or set PG_BIN to their folder")
        }
        return URL(fileURLWithPath: "\(root)/\(version)/bin")
    }

    /// A free TCP port on 127.0.0.1 (bound to port 0, then released).
    public static func freePort() throws -> Int {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw ProcessFailure("socket failed: errno \(errno)") }
        defer { close(fd) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = 0
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { address in
                bind(fd, address, length) == 0 && getsockname(fd, address, &length) == 0
            }
        }
        guard bound else { throw ProcessFailure("cannot bind a loopback port: errno \(errno)") }
        return Int(UInt16(bigEndian: address.sin_port))
    }
}

/// Hands out increasing numbers (database names, connection ids).
final class Counter: Sendable {
    private let value = Mutex(0)
    func next() -> Int { value.withLock { $0 += 1; return $0 } }
}

/// The process's shared cluster: started once, stopped by an exit handler.
actor SharedCluster {
    static let instance = SharedCluster()
    private var task: Task<PostgresCluster, any Error>?
    nonisolated(unsafe) static var started: PostgresCluster?

    func get() async throws -> PostgresCluster {
        if task == nil {
            task = Task {
                let cluster = try await PostgresCluster.start()
                SharedCluster.started = cluster
                atexit { SharedCluster.started?.stopNow() }
                return cluster
            }
        }
        return try await task!.value
    }
}
