import Foundation
import GRDB
import PostgresTestSupport
import SwiduxSync
import Testing
#if canImport(Glibc)
import Glibc
#endif

/// Sync over https: the real server serving TLS (`serve --tls-certificate --tls-key`) with
/// a certificate of a CA made by the test, which the clients are told to trust.
@Suite("Sync over https", .serialized)
struct HTTPSTests {
    /// A server behind TLS, its token, and the certificates (in `directory`).
    struct Fixture {
        let directory: URL
        let certificates: TestCertificates
        let token: String
        let server: ServerProcess

        static func start(space: String) async throws -> Fixture {
            let directory = try temporaryDirectory()
            let certificates = try TestCertificates(directory: directory)
            let postgres = try await PostgresCluster.shared().createDatabase()
            let token = try await ServerProcess.createToken(postgres: postgres, space: space)
            let server = try await ServerProcess.start(postgres: postgres, arguments: certificates.serveArguments)
            return Fixture(directory: directory, certificates: certificates, token: token, server: server)
        }

        func stop() async {
            await server.stop()
            try? FileManager.default.removeItem(at: directory)
        }
    }

    @Test("Two clients trusting the test CA converge over https; a client that does not trust it is told why")
    func clientsConvergeOverHTTPS() async throws {
        let fixture = try await Fixture.start(space: "https")
        #expect(fixture.server.url.scheme == "https")
        let trusted = try SyncTrustedCertificates(contentsOf: fixture.certificates.caFile)
        let a = try Device(name: "a", directory: fixture.directory, server: fixture.server.url, token: fixture.token, trustedCertificates: trusted)
        let b = try Device(name: "b", directory: fixture.directory, server: fixture.server.url, token: fixture.token, trustedCertificates: trusted)
        try await a.write { db in
            try db.execute(sql: "INSERT INTO parent (id, name) VALUES ('p1', 'over TLS')")
            try db.execute(sql: "INSERT INTO child (id, parentId, text) VALUES ('c1', 'p1', 'hello')")
        }
        #expect(try await a.client.sync().pending == 0)
        #expect(try await b.client.sync().pulled == 2)
        try await b.write { db in try db.execute(sql: "UPDATE child SET text = 'back' WHERE id = 'c1'") }
        try await b.client.sync()
        try await a.client.sync()
        #expect(try await a.snapshot() == b.snapshot())
        #expect(try await a.snapshot()["child"]?.values.first?["text"] == .text("back"))

        // The system's CAs alone do not vouch for the test server.
        let stranger = try Device(name: "stranger", directory: fixture.directory, server: fixture.server.url, token: fixture.token)
        do {
            try await stranger.client.sync()
            Issue.record("a client that does not trust the test CA synced")
        } catch let error as SyncError {
            #expect("\(error)".contains("cannot reach the sync server at https://127.0.0.1"), "\(error)")
            #expect("\(error)".contains("TLS"), "\(error)")
        }
        await fixture.stop()
    }

    @Test("The todos UI syncing over https with nothing happening is idle (CPU ≈ 0, few wake-ups)")
    func idleUIOverHTTPS() async throws {
        let fixture = try await Fixture.start(space: "https-idle")
        let database = fixture.directory.appendingPathComponent("ui-\(UUID().uuidString).sqlite").path
        let todos = try TodosSyncTests.todosExecutable()
        // `script` gives the UI a terminal; standard input stays open (a pipe from `sleep`).
        let command = "stty cols 100 rows 30; exec '\(todos)' --db '\(database)' --sync '\(fixture.server.url.absoluteString)'"
            + " --sync-token '\(fixture.token)' --sync-ca-file '\(fixture.certificates.caFile.path)'"
        var environment = ProcessInfo.processInfo.environment
        environment["TERM"] = "xterm"
        environment["TODOS_LOG"] = fixture.directory.appendingPathComponent("todos.log").path
        let shell = try ChildProcess(executable: "/bin/sh", arguments: ["-c", "sleep 25 | script -qfec \"\(command)\" /dev/null"],
                                     environment: environment)
        defer { shell.signal(SIGKILL) }
        var ui: pid_t?
        for _ in 0..<200 where ui == nil {
            try await Task.sleep(for: .milliseconds(50))
            ui = Self.process(whoseArgumentsContain: database)
        }
        let pid = try #require(ui, "the UI did not start: \(shell.standardOutput) \(shell.standardError)")
        defer { kill(pid, SIGKILL) }
        // Settled: the first sync round done, the long poll open.
        try await Task.sleep(for: .seconds(3))
        let before = try Self.usage(of: pid)
        try await Task.sleep(for: .seconds(10))
        let after = try Self.usage(of: pid)
        let cpu = after.cpuSeconds - before.cpuSeconds, wakeUps = after.switches - before.switches
        print("todos UI over https, 10 idle seconds: \(cpu) s of CPU, \(wakeUps) context switches of its threads")
        #expect(cpu < 0.5, "\(cpu) s of CPU in 10 idle seconds")
        let log = (try? String(contentsOf: fixture.directory.appendingPathComponent("todos.log"), encoding: .utf8)) ?? ""
        #expect(!log.contains("failed"), "the UI's sync failed: \(log)")
        await fixture.stop()
    }

    /// The process whose command line contains `text` (a unique path).
    static func process(whoseArgumentsContain text: String) -> pid_t? {
        let entries = (try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? []
        for entry in entries {
            guard let pid = pid_t(entry), let data = FileManager.default.contents(atPath: "/proc/\(pid)/cmdline") else { continue }
            let arguments = data.split(separator: 0).map { String(decoding: $0, as: UTF8.self) }
            if arguments.first?.hasSuffix("todos") == true, arguments.contains(text) { return pid }
        }
        return nil
    }

    /// CPU time (user and system) and context switches (all threads) of a running process.
    static func usage(of pid: pid_t) throws -> (cpuSeconds: Double, switches: Int) {
        let stat = try String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8)
        guard let close = stat.lastIndex(of: ")") else { throw ProcessFailure("unreadable /proc/\(pid)/stat") }
        let fields = stat[stat.index(after: close)...].split(separator: " ")
        guard fields.count > 13, let user = Double(fields[11]), let system = Double(fields[12]) else {
            throw ProcessFailure("unreadable /proc/\(pid)/stat")
        }
        var switches = 0
        for thread in (try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(pid)/task")) ?? [] {
            let status = (try? String(contentsOfFile: "/proc/\(pid)/task/\(thread)/status", encoding: .utf8)) ?? ""
            for line in status.split(separator: "\n") where line.hasSuffix("ctxt_switches") == false && line.contains("ctxt_switches") {
                switches += Int(line.split(separator: "\t").last.map(String.init)?.trimmingCharacters(in: .whitespaces) ?? "") ?? 0
            }
        }
        return ((user + system) / Double(sysconf(Int32(_SC_CLK_TCK))), switches)
    }
}
