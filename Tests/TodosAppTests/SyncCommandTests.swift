import Foundation
import Testing

/// `todos sync` without a server: what it says, and that it loses nothing.
extension ProcessTests { @Suite struct SyncCommandTests {
    /// Nothing listens on port 1 of the loopback interface: the connection is refused.
    static let unreachable = "http://127.0.0.1:1"

    @Test func unreachableServerExitsNonZeroAndChangesNothing() async throws {
        let box = try Sandbox()
        let id = try await box.add("Buy milk")
        let before = try await box.listJSON()
        let result = try await box.run("sync", "--sync", Self.unreachable, "--sync-token", "abc")
        #expect(result.status != 0)
        #expect(result.stderr.contains("cannot reach the sync server at \(Self.unreachable)"), "\(result.stderr)")
        #expect(try await box.listJSON() == before)
        #expect(before.map(\.id) == [id])
        // Through the environment too; still failing: the change stays queued, nothing lost.
        var environment = box.environment
        environment["TODOS_SYNC_URL"] = Self.unreachable
        environment["TODOS_SYNC_TOKEN"] = "abc"
        let again = try await box.run("sync", environment: environment)
        #expect(again.status != 0)
        #expect(again.stderr.contains("cannot reach"), "\(again.stderr)")
        #expect(try await box.listJSON() == before)
        #expect(try await box.run("check").stdout.contains("ok"))
    }

    @Test func missingURLOrTokenIsAnError() async throws {
        let box = try Sandbox()
        var environment = box.environment
        environment.removeValue(forKey: "TODOS_SYNC_URL")
        environment.removeValue(forKey: "TODOS_SYNC_TOKEN")
        let noServer = try await box.run("sync", environment: environment)
        #expect(noServer.status != 0)
        #expect(noServer.stderr.contains("no sync server: pass --sync <url> or set TODOS_SYNC_URL"), "\(noServer.stderr)")
        let noToken = try await box.run(arguments: ["sync", "--sync", Self.unreachable], environment: environment)
        #expect(noToken.status != 0)
        #expect(noToken.stderr.contains("no sync token: pass --sync-token <token> or set TODOS_SYNC_TOKEN"), "\(noToken.stderr)")
        let badURL = try await box.run(arguments: ["sync", "--sync", "ftp://x", "--sync-token", "t"], environment: environment)
        #expect(badURL.status != 0)
        #expect(badURL.stderr.contains("is not an http:// or https:// URL"), "\(badURL.stderr)")
        // None of them created a database.
        #expect(!FileManager.default.fileExists(atPath: box.database))
        let help = try await box.run("--help")
        #expect(help.stdout.contains("--sync <url>") && help.stdout.contains("--sync-token <token>"), "\(help.stdout)")
    }
} }
