import Foundation
import SwiduxTestSupport
import Testing
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Issue 29 item 14: against a server that accepts and never answers, or a dead one, the
/// client waits without spinning and its request timeout holds (real `todos` processes,
/// CPU time from the kernel).
extension ProcessTests { @Suite struct HungServerTests {
    @Test("`todos sync` against a hung server fails after its 30 s timeout, using little CPU")
    func syncAgainstAHungServerDoesNotSpin() async throws {
        let box = try Sandbox()
        _ = try await box.add("waiting for a server")
        let server = try HungServer()
        defer { server.stop() }
        let result = try await box.run("sync", "--sync", server.url.absoluteString, "--sync-token", "t")
        #expect(result.status != 0)
        #expect(result.stderr.contains("no answer within the time limit"), "\(result.stderr)")
        #expect(result.wallSeconds < 45, "the 30 s request timeout did not hold: \(result.wallSeconds) s")
        #expect(result.cpuSeconds < 2, "\(result.cpuSeconds) s of CPU in \(result.wallSeconds) s")
    }

    @Test("The UI syncing with a hung server, then with a dead one, is idle (CPU ≈ 0)", arguments: [true, false])
    func uiAgainstAHungOrDeadServerIsIdle(hung: Bool) async throws {
        let box = try Sandbox()
        let server = try HungServer()
        defer { server.stop() }
        var environment = box.environment
        environment["TODOS_SYNC_URL"] = server.url.absoluteString
        environment["TODOS_SYNC_TOKEN"] = "t"
        if !hung { server.stop() }   // nothing listens on the port any more: refused
        let session = try await TerminalSession.start(box: box, environment: environment)
        await session.waitFor("the item screen") { $0.text.contains("No items yet") }
        try await Task.sleep(for: .seconds(1))
        let before = try cpuSeconds(of: session.pid)
        try await Task.sleep(for: .seconds(10))
        let used = try cpuSeconds(of: session.pid) - before
        await session.type("q")
        #expect(await session.waitForExit() == 0)
        #expect(used < 0.5, "\(used) s of CPU in 10 idle seconds")
    }

    /// User and system CPU time of a running process (Linux: /proc/PID/stat).
    private func cpuSeconds(of pid: Int32) throws -> Double {
        let stat = try String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8)
        // Fields after the command name (which is in parentheses): state is field 3;
        // utime and stime are fields 14 and 15.
        guard let close = stat.lastIndex(of: ")") else { throw ProcessFailure("unreadable /proc/\(pid)/stat") }
        let fields = stat[stat.index(after: close)...].split(separator: " ")
        guard fields.count > 13, let user = Double(fields[11]), let system = Double(fields[12]) else {
            throw ProcessFailure("unreadable /proc/\(pid)/stat")
        }
        return (user + system) / Double(sysconf(Int32(_SC_CLK_TCK)))
    }
} }
