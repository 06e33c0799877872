import Crypto
import Foundation
import PostgresTestSupport
import Testing

/// `todos` with a JSON Web Token from the app's identity provider instead of an operator's
/// token: a user's two devices share their personal space, another user's device sees none of it.
@Suite("todos with JWT users", .serialized)
struct TodosJWTTests {
    static func base64URL(_ data: some DataProtocol) -> String {
        Data(data).base64EncodedString().replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
            .replacingOccurrences(of: "=", with: "")
    }

    /// An HS256 token of `subject` for audience `todos`, expiring at `expiry` (seconds since 1970).
    static func token(_ subject: String, secret: SymmetricKey, expiry: Int) -> String {
        let header = #"{"alg":"HS256","kid":"app","typ":"JWT"}"#
        let claims = #"{"sub":"\#(subject)","aud":"todos","exp":\#(expiry)}"#
        let input = base64URL(Data(header.utf8)) + "." + base64URL(Data(claims.utf8))
        return input + "." + base64URL(Data(HMAC<SHA256>.authenticationCode(for: Data(input.utf8), using: secret)))
    }

    /// A server that takes HS256 JWTs of audience `todos` (its key in a JWKS file in
    /// `directory`), a maker of tokens valid for an hour, its database, and the secret.
    static func server(in directory: URL) async throws -> (ServerProcess, (String) -> String, postgres: String, secret: SymmetricKey) {
        let secret = SymmetricKey(size: .bits256)
        let keys = directory.appendingPathComponent("keys.json")
        let k = base64URL(secret.withUnsafeBytes { Data($0) })
        try Data(#"{"keys":[{"kty":"oct","kid":"app","alg":"HS256","k":"\#(k)"}]}"#.utf8).write(to: keys)
        let postgres = try await PostgresCluster.shared().createDatabase()
        let server = try await ServerProcess.start(postgres: postgres, arguments: ["--jwt-keys", keys.path, "--jwt-audience", "todos"])
        let hour = Int(Date().timeIntervalSince1970) + 3600
        return (server, { token($0, secret: secret, expiry: hour) }, postgres, secret)
    }

    @Test("alice's two devices sync through her personal space; bob's sees nothing of it; an expired token is told", .timeLimit(.minutes(3)))
    func twoUsers() async throws {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let (server, token, _, secret) = try await Self.server(in: directory)
        defer { Task { await server.stop() } }
        let alice = token("alice"), bob = token("bob")
        let (phone, laptop, other) = ["phone", "laptop", "bob"].map { directory.appendingPathComponent("\($0).sqlite").path }
            .splat()
        func run(_ arguments: String..., on database: String, token: String) async throws -> (status: Int32, stdout: String, stderr: String) {
            try await TodosSyncTests.todos(arguments, database: database, server: server.url, token: token)
        }
        func titles(_ database: String, token: String) async throws -> [String] {
            let listed = try await run("list", "--json", on: database, token: token)
            return try JSONDecoder().decode([TodosSyncTests.Item].self, from: Data(listed.stdout.utf8)).map(\.title)
        }
        #expect(try await run("add", "Buy milk", on: phone, token: alice).status == 0)
        #expect(try await run("add", "Fix bike", on: other, token: bob).status == 0)
        for (database, token) in [(phone, alice), (other, bob), (laptop, alice)] {
            let synced = try await run("sync", on: database, token: token)
            #expect(synced.status == 0, "\(synced.stderr)")
        }
        #expect(try await titles(laptop, token: alice) == ["Buy milk"])
        #expect(try await titles(other, token: bob) == ["Fix bike"])

        let expired = Self.token("alice", secret: secret, expiry: Int(Date().timeIntervalSince1970) - 3600)
        let refused = try await run("sync", on: laptop, token: expired)
        #expect(refused.status != 0)
        #expect((refused.stdout + refused.stderr).contains("expired"), "\(refused.stdout)\(refused.stderr)")
    }
}

private extension Array {
    func splat() -> (Element, Element, Element) { (self[0], self[1], self[2]) }
}
