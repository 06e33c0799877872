import Foundation
import SwiduxTestSupport
import Testing

/// What a new user sees when something is wrong: one sentence naming the thing and the
/// cause, and what `todos sync` counted.
extension ProcessTests { @Suite struct FirstRunMessageTests {
    @Test func emptyFileIsNamedAsSuchNotAsPendingMigrations() async throws {
        let box = try Sandbox()
        #expect(FileManager.default.createFile(atPath: box.database, contents: Data()))
        let result = try await box.run("list")
        #expect(result.status != 0)
        #expect(result.stderr.contains("the database at \(box.database) is an empty file (0 bytes), not a todos database yet"), "\(result.stderr)")
        #expect(!result.stderr.contains("migrations"), "\(result.stderr)")
        #expect(try FileManager.default.attributesOfItem(atPath: box.database)[.size] as? Int == 0)   // untouched
    }

    @Test func serverAnsweringNotFoundWithNothingSaysToGiveTheBaseURL() async throws {
        let box = try Sandbox()
        _ = try await box.add("waiting")
        let server = try RefusingServer(status: "404 Not Found", message: "")
        defer { server.stop() }
        let result = try await box.run("sync", "--sync", server.url.absoluteString + "/api", "--sync-token", "t")
        #expect(result.status != 0)
        #expect(result.stderr.contains("answered 404 (not found) with no message: give the server's base URL (http://host:port), with no path"),
                "\(result.stderr)")
    }

    @Test func httpsURLOfAPlainHTTPServerSaysToGiveItsHTTPURL() async throws {
        let box = try Sandbox()
        _ = try await box.add("waiting")
        let server = try RefusingServer()
        defer { server.stop() }
        let https = "https://127.0.0.1:\(server.port)"
        let result = try await box.run("sync", "--sync", https, "--sync-token", "t")
        #expect(result.status != 0)
        #expect(result.stderr.contains("cannot reach the sync server at \(https): the server does not answer in TLS (https); if it serves plain HTTP, give its http:// URL"),
                "\(result.stderr)")
        // No TLS library internals: error codes, the paths of its sources.
        #expect(!result.stderr.contains("BoringSSL") && !result.stderr.contains(".build/"), "\(result.stderr)")
        #expect(!result.stderr.contains("network error"), "\(result.stderr)")
    }
} }
