import Foundation
import GRDB
import PostgresTestSupport
import SwiduxSync
import SwiduxTestSupport
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

        /// Runs `body` with a fresh server (serving https, or with `tls` false plain http for
        /// a comparison), then stops it and removes the files, whether `body` threw or not.
        static func with(space: String, tls: Bool = true, arguments: [String] = [],
                         _ body: (Fixture) async throws -> Void) async throws {
            let directory = try temporaryDirectory()
            defer { try? FileManager.default.removeItem(at: directory) }
            let certificates = try TestCertificates(directory: directory)
            let postgres = try await PostgresCluster.shared().createDatabase()
            let token = try await ServerProcess.createToken(postgres: postgres, space: space)
            let server = try await ServerProcess.start(postgres: postgres, arguments: (tls ? certificates.serveArguments : []) + arguments)
            let fixture = Fixture(directory: directory, certificates: certificates, token: token, server: server)
            do {
                try await body(fixture)
            } catch {
                await server.stop()
                throw error
            }
            await server.stop()
        }
    }

    @Test("Two clients trusting the test CA converge over https; a client that does not trust it is told why")
    func clientsConvergeOverHTTPS() async throws {
        try await Fixture.with(space: "https") { fixture in
            #expect(fixture.server.url.absoluteString.hasPrefix("https://127.0.0.1:"))
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

            // The system's CAs alone do not vouch for the test server; nor does another CA.
            let otherCA = fixture.directory.appendingPathComponent("other")
            try FileManager.default.createDirectory(at: otherCA, withIntermediateDirectories: true)
            let other = try SyncTrustedCertificates(contentsOf: try TestCertificates(directory: otherCA, caName: "Another CA").caFile)
            for (name, trusting) in [("stranger", nil), ("other", other)] as [(String, SyncTrustedCertificates?)] {
                let device = try Device(name: name, directory: fixture.directory, server: fixture.server.url, token: fixture.token,
                                        trustedCertificates: trusting)
                try await device.write { db in try db.execute(sql: "INSERT INTO parent (id, name) VALUES ('\(name)', 'never sent')") }
                let error = await #expect(throws: SyncError.self) { try await device.client.sync() }
                let text = error.map { "\($0)" } ?? ""
                print("a client trusting \(trusting == nil ? "the system's CAs only" : "another CA"): \(text)")
                #expect(text.contains("cannot reach the sync server at https://127.0.0.1"), "\(text)")
                #expect(text.contains("TLS failed: the server's certificate is not trusted"), "\(text)")
                #expect(!text.contains("error -1"), "\(text)")
            }
            // Nothing of theirs reached the server.
            #expect(try await serverParents(fixture) == 1)
        }
    }

    @Test("A connection that never finishes its TLS handshake is closed after the idle timeout")
    func unfinishedHandshakeIsClosed() async throws {
        try await Fixture.with(space: "https-handshake", arguments: ["--idle-timeout", "1"]) { fixture in
            let silent = try RawSocket(port: fixture.server.port)
            let partial = try RawSocket(port: fixture.server.port)
            partial.send("\u{16}\u{03}\u{01}")   // the start of a TLS record, then nothing
            try await Task.sleep(for: .milliseconds(300))
            #expect(!silent.isClosedByPeer && !partial.isClosedByPeer, "closed before the idle timeout")
            try await Task.sleep(for: .seconds(3))
            #expect(silent.isClosedByPeer, "a connection that sent nothing is still open 3 s past a 1 s idle timeout")
            #expect(partial.isClosedByPeer, "a half-sent handshake is still open 3 s past a 1 s idle timeout")
        }
    }

    @Test("The todos UI syncing over https (and, to compare, http): it syncs, and while nothing happens it uses ≈ no CPU and its network threads wake at most once a second",
          arguments: [true, false])
    func idleUI(tls: Bool) async throws {
        try await Fixture.with(space: "idle-\(tls)", tls: tls) { fixture in
            #expect(fixture.server.url.scheme == (tls ? "https" : "http"))
            let ui = fixture.directory.appendingPathComponent("ui.sqlite").path
            let other = fixture.directory.appendingPathComponent("other.sqlite").path
            let todos = try TodosSyncTests.todosExecutable()
            var environment = ProcessInfo.processInfo.environment
            environment["TERM"] = "xterm"
            environment["TODOS_LOG"] = fixture.directory.appendingPathComponent("todos.log").path
            environment["TODOS_SYNC_URL"] = nil
            environment["TODOS_SYNC_TOKEN"] = nil
            environment["TODOS_SYNC_CA_FILE"] = nil

            // `script` gives the UI a terminal; its input is a FIFO this test holds open, so
            // that the UI does not see the end of its input.
            let fifo = fixture.directory.appendingPathComponent("input").path
            try #require(mkfifo(fifo, 0o600) == 0)
            let input = open(fifo, O_RDWR)
            try #require(input >= 0)
            defer { close(input) }
            let command = "stty cols 100 rows 30; exec '\(todos)' --db '\(ui)' --sync '\(fixture.server.url.absoluteString)'"
                + " --sync-token '\(fixture.token)' --sync-ca-file '\(fixture.certificates.caFile.path)'"
            let shell = try await ChildProcess.start(["/bin/sh", "-c", "exec script -qfec \"\(command)\" /dev/null < '\(fifo)'"],
                                                     environment: environment)
            var found: pid_t?
            for _ in 0..<200 where found == nil {
                try await Task.sleep(for: .milliseconds(50))
                found = Self.process(named: "todos", withArgument: ui)
            }
            let pid = try #require(found, "the UI did not start: \(shell.standardOutput) \(shell.standardError)")
            var quit = false
            defer { if !quit { kill(pid, SIGKILL) } }

            // Another device's item reaches the UI's file: the UI syncs.
            func addAndSync(_ title: String) async throws {
                var sync = environment
                sync["TODOS_SYNC_URL"] = fixture.server.url.absoluteString
                sync["TODOS_SYNC_TOKEN"] = fixture.token
                sync["TODOS_SYNC_CA_FILE"] = fixture.certificates.caFile.path
                for arguments in [["add", title, "--db", other], ["sync", "--db", other]] {
                    let result = try await ChildProcess.capture([todos] + arguments, environment: sync)
                    #expect(result.status == 0, "todos \(arguments): \(result.stderr)")
                }
            }
            func arrives(_ title: String, within seconds: Int) async throws -> Bool {
                for _ in 0..<(seconds * 4) {
                    let list = try await ChildProcess.capture([todos, "list", "--json", "--db", ui], environment: environment)
                    if list.stdout.contains("\"\(title)\"") { return true }
                    try await Task.sleep(for: .milliseconds(250))
                }
                return false
            }
            try await addAndSync("before the quiet")
            #expect(try await arrives("before the quiet", within: 20), "the UI did not pull")

            // Settled: the pull's long poll is open, the push loop waits for commits.
            try await Task.sleep(for: .seconds(2))
            let before = try Self.usage(of: pid)
            try await Task.sleep(for: .seconds(10))
            let after = try Self.usage(of: pid)
            let cpu = after.cpuSeconds - before.cpuSeconds
            let network = after.networkWakeUps - before.networkWakeUps, all = after.allWakeUps - before.allWakeUps
            print("todos UI over \(fixture.server.url.scheme ?? ""), 10 idle seconds: \(cpu) s of CPU; \(network) wake-ups of its \(after.networkThreads) network threads, \(all) of all its threads")
            #expect(after.networkThreads > 0, "no NIO event loop thread found in the UI process")
            #expect(cpu < 0.5, "\(cpu) s of CPU in 10 idle seconds")
            #expect(network <= 10, "the UI's network threads woke \(network) times in 10 idle seconds")

            // Still syncing after the quiet: the long poll kept open brings the next change.
            try await addAndSync("after the quiet")
            #expect(try await arrives("after the quiet", within: 10), "the UI stopped pulling")

            kill(pid, SIGTERM)   // the UI quits cleanly on SIGTERM, then `script` ends
            quit = true
            #expect(try await shell.wait() == 0)
            let log = (try? String(contentsOf: fixture.directory.appendingPathComponent("todos.log"), encoding: .utf8)) ?? ""
            #expect(!log.contains("TLS"), "the UI's sync failed: \(log)")
        }
    }

    /// How many parents the server holds (pulled by a new client that trusts the test CA).
    private func serverParents(_ fixture: Fixture) async throws -> Int {
        let trusted = try SyncTrustedCertificates(contentsOf: fixture.certificates.caFile)
        let check = try Device(name: "check", directory: fixture.directory, server: fixture.server.url, token: fixture.token,
                               trustedCertificates: trusted)
        try await check.client.sync()
        return try await check.snapshot()["parent"]?.count ?? 0
    }

    /// The process whose executable's name is `name` and whose arguments include `argument`.
    static func process(named name: String, withArgument argument: String) -> pid_t? {
        for entry in (try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? [] {
            guard let pid = pid_t(entry), let data = FileManager.default.contents(atPath: "/proc/\(pid)/cmdline") else { continue }
            let arguments = data.split(separator: 0).map { String(decoding: $0, as: UTF8.self) }
            if arguments.first.map({ URL(fileURLWithPath: $0).lastPathComponent }) == name, arguments.contains(argument) { return pid }
        }
        return nil
    }

    /// CPU time (user and system) of a running process, and the times its threads were woken
    /// (voluntary context switches): all of them, and those of SwiftNIO's event loops
    /// ("NIO-…"), where AsyncHTTPClient waits for the network.
    static func usage(of pid: pid_t) throws -> (cpuSeconds: Double, allWakeUps: Int, networkWakeUps: Int, networkThreads: Int) {
        let stat = try String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8)
        // Fields after the command name (in parentheses): utime and stime are fields 14 and 15.
        guard let close = stat.lastIndex(of: ")") else { throw ProcessFailure("unreadable /proc/\(pid)/stat") }
        let fields = stat[stat.index(after: close)...].split(separator: " ")
        guard fields.count > 13, let user = Double(fields[11]), let system = Double(fields[12]) else {
            throw ProcessFailure("unreadable /proc/\(pid)/stat")
        }
        var all = 0, network = 0, networkThreads = 0
        for thread in (try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(pid)/task")) ?? [] {
            let name = (try? String(contentsOfFile: "/proc/\(pid)/task/\(thread)/comm", encoding: .utf8)) ?? ""
            let status = (try? String(contentsOfFile: "/proc/\(pid)/task/\(thread)/status", encoding: .utf8)) ?? ""
            let line = status.split(separator: "\n").first { $0.hasPrefix("voluntary_ctxt_switches:") }
            let switches = line.flatMap { Int($0.split(separator: ":").last?.trimmingCharacters(in: .whitespaces) ?? "") } ?? 0
            all += switches
            if name.hasPrefix("NIO-") { network += switches; networkThreads += 1 }
        }
        return ((user + system) / Double(sysconf(Int32(_SC_CLK_TCK))), all, network, networkThreads)
    }
}
