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

    /// `todos` processes of several users against one server.
    struct Session {
        let server: ServerProcess

        /// `todos <arguments>` on `database` as `user`; expects it to exit 0 (or not, without `succeeds`).
        @discardableResult
        func run(_ arguments: String..., on database: String, as user: String, succeeds: Bool = true) async throws -> (stdout: String, stderr: String) {
            let result = try await TodosSyncTests.todos(arguments, database: database, server: server.url, token: user)
            if succeeds { #expect(result.status == 0, "todos \(arguments): \(result.stderr)") } else { #expect(result.status != 0, "todos \(arguments) succeeded") }
            return (result.stdout, result.stderr)
        }

        /// `todos list --json` (of `list` only, if given).
        func items(_ database: String, as user: String, list: String? = nil) async throws -> [Listed] {
            let result = try await TodosSyncTests.todos(["list", "--json"] + (list.map { ["--list", $0] } ?? []), database: database,
                                                        server: server.url, token: user)
            #expect(result.status == 0, "todos list: \(result.stderr)")
            return try JSONDecoder().decode([Listed].self, from: Data(result.stdout.utf8))
        }
    }

    @Test("alice shares a list with bob: both edit it, her second device gets it once, her other lists stay hers", .timeLimit(.minutes(3)))
    func writerSharesBothWays() async throws {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let (server, token, _, _) = try await TodosJWTTests.server(in: directory)
        defer { Task { await server.stop() } }
        let session = Session(server: server)
        let (alice, bob) = (token("alice"), token("bob"))
        let phone = directory.appendingPathComponent("alice-phone.sqlite").path
        let laptop = directory.appendingPathComponent("alice-laptop.sqlite").path
        let bobs = directory.appendingPathComponent("bob.sqlite").path

        try await session.run("add", "milk", "--list", "Groceries", on: phone, as: alice)
        try await session.run("add", "bread", "--list", "Groceries", on: phone, as: alice)
        try await session.run("add", "diary", "--list", "Private", on: phone, as: alice)
        try await session.run("sync", on: phone, as: alice)
        // Her laptop has the list before it is shared: the move must not lose or double it.
        try await session.run("sync", on: laptop, as: alice)
        #expect(try await session.items(laptop, as: alice).map(\.title).sorted() == ["bread", "diary", "milk"])

        // Sharing with herself is refused, and leaves the list where it was.
        let herself = try await session.run("share", "Groceries", "--with", "alice", on: phone, as: alice, succeeds: false)
        #expect(herself.stderr.contains("“Groceries” is yours already: share it with another user"), "\(herself.stderr)")

        let shared = try await session.run("share", "Groceries", "--with", "bob", on: phone, as: alice)
        #expect(shared.stdout.contains("shared “Groceries” with bob"), "\(shared.stdout)")

        try await session.run("sync", on: bobs, as: bob)
        let bobsItems = try await session.items(bobs, as: bob)
        #expect(bobsItems.map(\.title).sorted() == ["bread", "milk"], "bob sees the shared list only")
        #expect(Set(bobsItems.map(\.list)) == ["Groceries"])

        // bob adds to the shared list and checks one off; alice sees both.
        try await session.run("add", "eggs", "--list", "Groceries", on: bobs, as: bob)
        let milk = try #require(bobsItems.first { $0.title == "milk" })
        try await session.run("done", milk.id, on: bobs, as: bob)
        try await session.run("sync", on: bobs, as: bob)
        try await session.run("sync", on: phone, as: alice)
        let phoneItems = try await session.items(phone, as: alice)
        #expect(phoneItems.map(\.title).sorted() == ["bread", "diary", "eggs", "milk"])
        #expect(phoneItems.first { $0.title == "milk" }?.done == true)

        // Her laptop: every item exactly once, the shared ones and her own.
        try await session.run("sync", on: laptop, as: alice)
        let laptopItems = try await session.items(laptop, as: alice)
        #expect(laptopItems.map(\.title).sorted() == ["bread", "diary", "eggs", "milk"], "\(laptopItems)")
        // An edit on the laptop reaches bob.
        let bread = try #require(laptopItems.first { $0.title == "bread" })
        try await session.run("done", bread.id, on: laptop, as: alice)
        try await session.run("sync", on: laptop, as: alice)
        try await session.run("sync", on: bobs, as: bob)
        #expect(try await session.items(bobs, as: bob).first { $0.title == "bread" }?.done == true)
        #expect(try await !session.items(bobs, as: bob).contains { $0.title == "diary" })
    }

    @Test("a reader's edits are refused; a removed member keeps the list, read-only; only an owner shares", .timeLimit(.minutes(3)))
    func readerAndRemovedMember() async throws {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let (server, token, _, _) = try await TodosJWTTests.server(in: directory)
        defer { Task { await server.stop() } }
        let session = Session(server: server)
        let (alice, bob, carol) = (token("alice"), token("bob"), token("carol"))
        let path = { (name: String) in directory.appendingPathComponent("\(name).sqlite").path }
        let (phone, bobs, carols) = (path("alice"), path("bob"), path("carol"))
        try await session.run("add", "milk", "--list", "Groceries", on: phone, as: alice)
        let readOnly = try await session.run("share", "Groceries", "--with", "carol", "--read-only", on: phone, as: alice)
        #expect(readOnly.stdout.contains("read-only"))
        try await session.run("share", "Groceries", "--with", "bob", on: phone, as: alice)

        // carol reads; her change is refused here, before it reaches the server.
        try await session.run("sync", on: carols, as: carol)
        let carolsItems = try await session.items(carols, as: carol)
        #expect(carolsItems.map(\.title) == ["milk"])
        let refused = try await session.run("add", "cake", "--list", "Groceries", on: carols, as: carol, succeeds: false)
        #expect(refused.stderr.contains("read-only"), "\(refused.stderr)")
        // A writer may not share further: only an owner may.
        try await session.run("sync", on: bobs, as: bob)
        let notOwner = try await session.run("share", "Groceries", "--with", "dave", on: bobs, as: bob, succeeds: false)
        #expect(notOwner.stderr.contains("owner"), "\(notOwner.stderr)")

        // bob is removed: his sync still succeeds, he keeps the list, read-only.
        let unshared = try await session.run("unshare", "Groceries", "--with", "bob", on: phone, as: alice)
        #expect(unshared.stdout.contains("no longer shared with bob"))
        try await session.run("add", "butter", "--list", "Groceries", on: phone, as: alice)
        try await session.run("sync", on: phone, as: alice)
        try await session.run("sync", on: bobs, as: bob)
        let bobsItems = try await session.items(bobs, as: bob)
        #expect(bobsItems.map(\.title) == ["milk"], "bob keeps what he had and gets nothing more")
        let kept = try await session.run("done", bobsItems[0].id, on: bobs, as: bob, succeeds: false)
        #expect(kept.stderr.contains("no longer shared"), "\(kept.stderr)")
        // carol still gets the list's new items.
        try await session.run("sync", on: carols, as: carol)
        #expect(try await session.items(carols, as: carol).map(\.title).sorted() == ["butter", "milk"])
    }

    @Test("bob has a list of that name already: his items stay his, the shared ones join them, what he adds is shared; an opaque token cannot share", .timeLimit(.minutes(3)))
    func sameNameOnBothSides() async throws {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let (server, token, postgres, _) = try await TodosJWTTests.server(in: directory)
        defer { Task { await server.stop() } }
        let session = Session(server: server)
        let (alice, bob) = (token("alice"), token("bob"))
        let path = { (name: String) in directory.appendingPathComponent("\(name).sqlite").path }
        let (phone, bobs) = (path("alice"), path("bob"))
        try await session.run("add", "milk", "--list", "Groceries", on: phone, as: alice)
        try await session.run("add", "apples", "--list", "Groceries", on: bobs, as: bob)
        try await session.run("sync", on: bobs, as: bob)
        try await session.run("share", "Groceries", "--with", "bob", on: phone, as: alice)
        let synced = try await session.run("sync", on: bobs, as: bob)
        #expect(!synced.stdout.contains("waiting"), "\(synced.stdout)")
        #expect(try await session.items(bobs, as: bob, list: "Groceries").map(\.title).sorted() == ["apples", "milk"])
        try await session.run("add", "pears", "--list", "Groceries", on: bobs, as: bob)
        try await session.run("sync", on: bobs, as: bob)
        try await session.run("sync", on: phone, as: alice)
        #expect(try await session.items(phone, as: alice, list: "Groceries").map(\.title).sorted() == ["milk", "pears"], "bob's own item stays his")

        // Sharing needs a user: an operator's opaque token is refused with the reason.
        let opaque = try await ServerProcess.createToken(postgres: postgres, space: "ops")
        let refused = try await session.run("share", "Groceries", "--with", "carol", on: phone, as: opaque, succeeds: false)
        #expect(refused.stderr.contains("JWT") || refused.stderr.contains("opaque"), "\(refused.stderr)")
    }
}
