import Crypto
import Foundation
import PostgresTestSupport
import Testing

/// Two users of `todos` sharing a list through the sync server: `todos share` and
/// `todos unshare`, writers and readers, a second device of the owner, and a removed member
/// keeping what they had, read-only.
@Suite("todos sharing lists between users", .serialized)
struct TodosSharingTests {
    struct Listed: Decodable {
        var id: String
        var title: String
        var list: String
        var done: Bool
    }

    /// A server that takes HS256 JWTs of audience `todos`, and a token maker.
    static func server(in directory: URL) async throws -> (ServerProcess, (String) -> String) {
        let secret = SymmetricKey(size: .bits256)
        let keys = directory.appendingPathComponent("keys.json")
        let k = TodosJWTTests.base64URL(secret.withUnsafeBytes { Data($0) })
        try Data(#"{"keys":[{"kty":"oct","kid":"app","alg":"HS256","k":"\#(k)"}]}"#.utf8).write(to: keys)
        let postgres = try await PostgresCluster.shared().createDatabase()
        let server = try await ServerProcess.start(postgres: postgres, arguments: ["--jwt-keys", keys.path, "--jwt-audience", "todos"])
        let hour = Int(Date().timeIntervalSince1970) + 3600
        return (server, { TodosJWTTests.token($0, secret: secret, expiry: hour) })
    }

    @Test("alice shares a list with bob: both edit it, her second device gets it once, her other lists stay hers", .timeLimit(.minutes(3)))
    func writerSharesBothWays() async throws {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let (server, token) = try await Self.server(in: directory)
        defer { Task { await server.stop() } }
        let (alice, bob) = (token("alice"), token("bob"))
        let phone = directory.appendingPathComponent("alice-phone.sqlite").path
        let laptop = directory.appendingPathComponent("alice-laptop.sqlite").path
        let bobs = directory.appendingPathComponent("bob.sqlite").path
        @discardableResult
        func run(_ arguments: String..., on database: String, as user: String, succeeds: Bool = true) async throws -> (stdout: String, stderr: String) {
            let result = try await TodosSyncTests.todos(arguments, database: database, server: server.url, token: user)
            if succeeds { #expect(result.status == 0, "todos \(arguments): \(result.stderr)") } else { #expect(result.status != 0, "todos \(arguments) succeeded") }
            return (result.stdout, result.stderr)
        }
        func items(_ database: String, as user: String) async throws -> [Listed] {
            let listed = try await run("list", "--json", on: database, as: user)
            return try JSONDecoder().decode([Listed].self, from: Data(listed.stdout.utf8))
        }

        try await run("add", "milk", "--list", "Groceries", on: phone, as: alice)
        try await run("add", "bread", "--list", "Groceries", on: phone, as: alice)
        try await run("add", "diary", "--list", "Private", on: phone, as: alice)
        try await run("sync", on: phone, as: alice)
        // Her laptop has the list before it is shared: the move must not lose or double it.
        try await run("sync", on: laptop, as: alice)
        #expect(try await items(laptop, as: alice).map(\.title).sorted() == ["bread", "diary", "milk"])

        let shared = try await run("share", "Groceries", "--with", "bob", on: phone, as: alice)
        #expect(shared.stdout.contains("shared “Groceries” with bob"), "\(shared.stdout)")

        try await run("sync", on: bobs, as: bob)
        let bobsItems = try await items(bobs, as: bob)
        #expect(bobsItems.map(\.title).sorted() == ["bread", "milk"], "bob sees the shared list only")
        #expect(Set(bobsItems.map(\.list)) == ["Groceries"])

        // bob adds to the shared list and checks one off; alice sees both.
        try await run("add", "eggs", "--list", "Groceries", on: bobs, as: bob)
        let milk = try #require(bobsItems.first { $0.title == "milk" })
        try await run("done", milk.id, on: bobs, as: bob)
        try await run("sync", on: bobs, as: bob)
        try await run("sync", on: phone, as: alice)
        let phoneItems = try await items(phone, as: alice)
        #expect(phoneItems.map(\.title).sorted() == ["bread", "diary", "eggs", "milk"])
        #expect(phoneItems.first { $0.title == "milk" }?.done == true)

        // Her laptop: every item exactly once, the shared ones and her own.
        try await run("sync", on: laptop, as: alice)
        let laptopItems = try await items(laptop, as: alice)
        #expect(laptopItems.map(\.title).sorted() == ["bread", "diary", "eggs", "milk"], "\(laptopItems)")
        // An edit on the laptop reaches bob.
        let bread = try #require(laptopItems.first { $0.title == "bread" })
        try await run("done", bread.id, on: laptop, as: alice)
        try await run("sync", on: laptop, as: alice)
        try await run("sync", on: bobs, as: bob)
        #expect(try await items(bobs, as: bob).first { $0.title == "bread" }?.done == true)
        #expect(try await !items(bobs, as: bob).contains { $0.title == "diary" })
    }

    @Test("a reader's edits are refused; a removed member keeps the list, read-only; only an owner shares", .timeLimit(.minutes(3)))
    func readerAndRemovedMember() async throws {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let (server, token) = try await Self.server(in: directory)
        defer { Task { await server.stop() } }
        let (alice, bob, carol) = (token("alice"), token("bob"), token("carol"))
        let path = { (name: String) in directory.appendingPathComponent("\(name).sqlite").path }
        let (phone, bobs, carols) = (path("alice"), path("bob"), path("carol"))
        @discardableResult
        func run(_ arguments: String..., on database: String, as user: String, succeeds: Bool = true) async throws -> (stdout: String, stderr: String) {
            let result = try await TodosSyncTests.todos(arguments, database: database, server: server.url, token: user)
            if succeeds { #expect(result.status == 0, "todos \(arguments): \(result.stderr)") } else { #expect(result.status != 0, "todos \(arguments) succeeded") }
            return (result.stdout, result.stderr)
        }
        func items(_ database: String, as user: String) async throws -> [Listed] {
            let listed = try await run("list", "--json", on: database, as: user)
            return try JSONDecoder().decode([Listed].self, from: Data(listed.stdout.utf8))
        }
        try await run("add", "milk", "--list", "Groceries", on: phone, as: alice)
        let readOnly = try await run("share", "Groceries", "--with", "carol", "--read-only", on: phone, as: alice)
        #expect(readOnly.stdout.contains("read-only"))
        try await run("share", "Groceries", "--with", "bob", on: phone, as: alice)

        // carol reads; her change is refused here, before it reaches the server.
        try await run("sync", on: carols, as: carol)
        let carolsItems = try await items(carols, as: carol)
        #expect(carolsItems.map(\.title) == ["milk"])
        let refused = try await run("add", "cake", "--list", "Groceries", on: carols, as: carol, succeeds: false)
        #expect(refused.stderr.contains("read-only"), "\(refused.stderr)")
        // A writer may not share further: only an owner may.
        try await run("sync", on: bobs, as: bob)
        let notOwner = try await run("share", "Groceries", "--with", "dave", on: bobs, as: bob, succeeds: false)
        #expect(notOwner.stderr.contains("owner"), "\(notOwner.stderr)")

        // bob is removed: his sync still succeeds, he keeps the list, read-only.
        let unshared = try await run("unshare", "Groceries", "--with", "bob", on: phone, as: alice)
        #expect(unshared.stdout.contains("no longer shared with bob"))
        try await run("add", "butter", "--list", "Groceries", on: phone, as: alice)
        try await run("sync", on: phone, as: alice)
        try await run("sync", on: bobs, as: bob)
        let bobsItems = try await items(bobs, as: bob)
        #expect(bobsItems.map(\.title) == ["milk"], "bob keeps what he had and gets nothing more")
        let kept = try await run("done", bobsItems[0].id, on: bobs, as: bob, succeeds: false)
        #expect(kept.stderr.contains("no longer shared"), "\(kept.stderr)")
        // carol still gets the list's new items.
        try await run("sync", on: carols, as: carol)
        #expect(try await items(carols, as: carol).map(\.title).sorted() == ["butter", "milk"])
    }
}
