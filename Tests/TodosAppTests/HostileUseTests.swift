import Foundation
import GRDB
import Testing
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Issue 18: `todos` under hostile use, driven through the real executable.
extension ProcessTests { @Suite struct HostileUseTests {
    /// The one line of a failure's standard error, checked to be a single sentence naming `path`.
    func expectOneSentence(_ result: RunResult, naming path: String, _ context: String = "",
                           sourceLocation: SourceLocation = #_sourceLocation) {
        #expect(result.status != 0, "\(context)", sourceLocation: sourceLocation)
        let lines = result.stderr.split(separator: "\n")
        #expect(lines.count == 1, "\(context): \(result.stderr)", sourceLocation: sourceLocation)
        #expect(result.stderr.contains(path), "\(context): \(result.stderr)", sourceLocation: sourceLocation)
        for dump in ["NSCocoaErrorDomain", "UserInfo", "Code=", "Error Domain"] {
            #expect(!result.stderr.contains(dump), "\(context): \(result.stderr)", sourceLocation: sourceLocation)
        }
    }

    func makeForeignDatabase(at path: String) throws {
        let queue = try DatabaseQueue(path: path)
        try queue.write { db in
            try db.execute(sql: "CREATE TABLE todoItem (id INTEGER PRIMARY KEY, what TEXT)")
            try db.execute(sql: "INSERT INTO todoItem (what) VALUES ('not yours')")
        }
        try queue.close()
    }

    func tableNames(_ path: String) throws -> [String] {
        var configuration = Configuration()
        configuration.readonly = true
        let queue = try DatabaseQueue(path: path, configuration: configuration)
        defer { try? queue.close() }
        return try queue.read { try String.fetchAll($0, sql: "SELECT name FROM sqlite_master WHERE type = 'table'") }
    }

    func schemaVersion(_ path: String) throws -> Int {
        var configuration = Configuration()
        configuration.readonly = true
        let queue = try DatabaseQueue(path: path, configuration: configuration)
        defer { try? queue.close() }
        return try queue.read { try Int.fetchOne($0, sql: "PRAGMA schema_version") ?? -1 }
    }

    // MARK: Item 5: read-only commands never create or modify a database

    @Test func readOnlyCommandsOnAMissingDatabaseFailAndCreateNothing() async throws {
        let box = try Sandbox()
        let top = box.directory.appendingPathComponent("a")
        let path = top.appendingPathComponent("b/c/db.sqlite").path
        for arguments in [["list"], ["list", "--json"], ["done", "abcd1234"], ["rm", "abcd1234"]] {
            let result = try await box.run(arguments: arguments + ["--db", path])
            expectOneSentence(result, naming: path, "\(arguments)")
            #expect(result.stderr.contains("no database at \(path)"), "\(arguments): \(result.stderr)")
            #expect(!FileManager.default.fileExists(atPath: top.path), "\(arguments) created \(top.path)")
        }
        // Beside an existing directory: still nothing created.
        let result = try await box.run("done", "abcd1234")
        #expect(result.stderr.contains("no database at \(box.database)"), "\(result.stderr)")
        #expect(!FileManager.default.fileExists(atPath: box.database))
    }

    @Test func onlyAddCreatesADatabaseAndSaysWhere() async throws {
        let box = try Sandbox()
        let path = box.directory.appendingPathComponent("new/dir/todos.sqlite").path
        let first = try await box.run("add", "First", "--db", path)
        #expect(first.status == 0, "\(first.stderr)")
        #expect(first.stderr.contains("created a new database at \(path)"), "\(first.stderr)")
        #expect(UUID(uuidString: first.stdout.trimmingCharacters(in: .whitespacesAndNewlines)) != nil)
        let second = try await box.run("add", "Second", "--db", path)
        #expect(second.status == 0 && second.stderr.isEmpty, "\(second.stderr)")
    }

    @Test func listNeverWrites() async throws {
        let box = try Sandbox()
        _ = try await box.add("Buy milk", "--tag", "shop")
        _ = try await box.add("Plan", "--list", "Work")
        let before = try #require(box.bytes(box.database))
        let version = try schemaVersion(box.database)
        let walBefore = box.bytes(box.database + "-wal")
        for arguments in [["list"], ["list", "--json"], ["list", "--list", "Work"], ["list", "--list", "Nope"]] {
            _ = try await box.run(arguments: arguments)
            #expect(box.bytes(box.database) == before, "\(arguments) changed the file")
            #expect((box.bytes(box.database + "-wal") ?? Data()) == (walBefore ?? Data()), "\(arguments) wrote to the WAL")
        }
        #expect(try schemaVersion(box.database) == version)
        #expect(try await box.listJSON().count == 2)
    }

    // MARK: Item 6: over-long input is refused with the limit named, never cut

    @Test func overLongInputIsRefusedNamingTheLimit() async throws {
        let box = try Sandbox()
        _ = try await box.add("Seed")
        let cases: [(arguments: [String], limit: String)] = [
            (["add", String(repeating: "x", count: 100_000)], "500"),
            (["add", String(repeating: "y", count: 501)], "500"),
            (["add", "ok", "--list", String(repeating: "L", count: 150)], "100"),
            (["add", "ok", "--tag", String(repeating: "t", count: 101)], "100"),
        ]
        for (arguments, limit) in cases {
            let result = try await box.run(arguments: arguments)
            #expect(result.status != 0, "\(arguments.map { $0.prefix(20) })")
            #expect(result.stderr.contains("limited to \(limit) characters"), "\(result.stderr)")
        }
        #expect(try await box.listJSON().map(\.title) == ["Seed"])
        // At the limit: stored whole.
        let exact = String(repeating: "é", count: 500)
        _ = try await box.add(exact, "--list", String(repeating: "N", count: 100), "--tag", String(repeating: "g", count: 100))
        let items = try await box.listJSON()
        #expect(items.last?.title == exact)
        #expect(items.last?.list.count == 100 && items.last?.tags.first?.count == 100)
    }

    // MARK: Item 7: one normalisation of list names on every path

    @Test func listNamesAreNormalisedTheSameWayOnEveryPath() async throws {
        let box = try Sandbox()
        for name in [" Home", "Ho\nme", "  work  "] {
            _ = try await box.add("one", "--list", name)
            _ = try await box.add("two", "--list", name)
            let found = try await box.listJSON("--list", name)
            #expect(found.map(\.title) == ["one", "two"], "\(name.debugDescription)")
        }
        #expect(try await box.listJSON("--list", "HOME").count == 2)
        #expect(try await box.listJSON("--list", "home ").count == 2)
        let names = Set(try await box.listJSON().map(\.list))
        #expect(names == ["Home", "Ho me", "work"])
        // Over the limit: refused the same way when adding and when looking up.
        let long = String(repeating: "L", count: 150)
        for arguments in [["add", "x", "--list", long], ["list", "--list", long]] {
            let result = try await box.run(arguments: arguments)
            #expect(result.status != 0 && result.stderr.contains("limited to 100 characters"), "\(result.stderr)")
        }
    }

    // MARK: Item 8: no terminal injection from `list`

    @Test func plainListNeutralisesControlCharacters() async throws {
        let box = try Sandbox()
        let evil = "red \u{1B}[31mALERT\u{1B}]0;pwned\u{07} \u{9B}2J end"
        _ = try await box.add(evil, "--list", "L\u{1B}[1mist", "--tag", "t\u{1B}ag")
        let text = try await box.run("list")
        #expect(text.status == 0)
        for scalar in text.stdout.unicodeScalars {
            #expect(scalar == "\n" || !(scalar.value < 0x20 || (0x7F...0x9F).contains(scalar.value)), "raw U+\(String(scalar.value, radix: 16))")
        }
        #expect(text.stdout.contains("red ?[31mALERT?]0;pwned? ?2J end"))
        // JSON escapes them and keeps the text intact.
        #expect(try await box.listJSON().first?.title == evil)
    }

    // MARK: Item 9: `~` expands from $HOME

    @Test func tildeExpandsFromHOME() async throws {
        let box = try Sandbox()
        let home = box.directory.appendingPathComponent("home")
        try FileManager.default.createDirectory(at: home, withIntermediateDirectories: true)
        var environment = box.environment
        environment["HOME"] = home.path
        environment.removeValue(forKey: "TODOS_DB")
        #expect(try await box.run(arguments: ["add", "x", "--db", "~/a.sqlite"], environment: environment).status == 0)
        #expect(FileManager.default.fileExists(atPath: home.appendingPathComponent("a.sqlite").path))
        environment["TODOS_DB"] = "~/b.sqlite"
        #expect(try await box.run(arguments: ["add", "y"], environment: environment).status == 0)
        #expect(FileManager.default.fileExists(atPath: home.appendingPathComponent("b.sqlite").path))
    }

    // MARK: Item 10: read-only databases and clear errors

    @Test func readOnlyDatabaseCanBeListedAndErrorsAreOneSentence() async throws {
        let box = try Sandbox()
        _ = try await box.add("Readable", "--tag", "ro")
        let before = try #require(box.bytes(box.database))
        // The file and its directory become read-only for the user who runs `todos`.
        if getuid() == 0 {
            try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: box.directory.path)
            try FileManager.default.setAttributes([.posixPermissions: 0o644], ofItemAtPath: box.database)
        } else {
            try FileManager.default.setAttributes([.posixPermissions: 0o444], ofItemAtPath: box.database)
            try FileManager.default.setAttributes([.posixPermissions: 0o555], ofItemAtPath: box.directory.path)
        }
        defer { try? FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: box.directory.path) }
        func run(_ arguments: String...) async throws -> RunResult {
            if getuid() == 0 {
                return try #require(try await box.runUnprivileged(arguments: arguments))
            }
            return try await box.run(arguments: arguments)
        }
        let listed = try await run("list", "--json")
        #expect(listed.status == 0, "\(listed.stderr)")
        #expect(listed.stdout.contains("Readable"))
        let done = try await run("done", String(try await box.listJSON().first!.id.prefix(8)))
        expectOneSentence(done, naming: box.database, "done on a read-only database")
        #expect(done.stderr.contains("read-only"), "\(done.stderr)")
        let unwritable = box.directory.appendingPathComponent("sub/dir/x.sqlite").path
        let add = try await run("add", "x", "--db", unwritable)
        expectOneSentence(add, naming: unwritable, "add under a read-only directory")
        #expect(add.stderr.lowercased().contains("permission denied") || add.stderr.contains("read-only"), "\(add.stderr)")
        #expect(box.bytes(box.database) == before)
    }

    // MARK: Item 13: input thrown away silently

    @Test func inputIsNeverThrownAwaySilently() async throws {
        let box = try Sandbox()
        _ = try await box.add("Seed")
        for tag in ["#", "##", " # "] {
            let result = try await box.run("add", "x", "--tag", tag)
            #expect(result.status != 0 && result.stderr.contains("tag"), "\(tag): \(result.stderr)")
        }
        #expect(try await box.listJSON().map(\.title) == ["Seed"])
        let dash = try await box.run("add", "-x")
        #expect(dash.status != 0)
        #expect(dash.stderr.contains("todos add -- '-x'"), "\(dash.stderr)")
        _ = try await box.add("--", "-x")
        #expect(try await box.listJSON().map(\.title) == ["Seed", "-x"])
    }

    // MARK: Item 4: a damaged or foreign file is refused and left byte for byte

    @Test func corruptWALDatabaseIsRefusedAndLeftAlone() async throws {
        let box = try Sandbox()
        for index in 0..<40 { _ = try await box.add("Item \(index) " + String(repeating: "x", count: 300), "--tag", "t\(index % 5)") }
        var data = try #require(box.bytes(box.database))
        #expect(data[18] == 2 && data[19] == 2, "the file is in WAL mode")
        let pageSize = Int(data[16]) << 8 | Int(data[17])
        #expect(data.count >= 4 * pageSize)
        for offset in (2 * pageSize)..<(3 * pageSize) { data[offset] = UInt8(truncatingIfNeeded: offset &* 7 &+ 13) }
        try data.write(to: URL(fileURLWithPath: box.database))
        for arguments in [["list"], ["list", "--json"], ["add", "more"], ["done", "abcd1234"], ["rm", "abcd1234"]] {
            let result = try await box.run(arguments: arguments)
            expectOneSentence(result, naming: box.database, "\(arguments)")
            #expect(result.stderr.contains("corrupt"), "\(arguments): \(result.stderr)")
            #expect(box.bytes(box.database) == data, "\(arguments) changed the file")
            #expect((box.bytes(box.database + "-wal") ?? Data()).isEmpty, "\(arguments) wrote a WAL")
        }
    }

    @Test func foreignSQLiteFileIsRefusedBeforeAnythingIsWritten() async throws {
        let box = try Sandbox()
        try makeForeignDatabase(at: box.database)
        let before = try #require(box.bytes(box.database))
        for arguments in [["list"], ["add", "x"], ["done", "abcd1234"], ["rm", "abcd1234"]] {
            let result = try await box.run(arguments: arguments)
            expectOneSentence(result, naming: box.database, "\(arguments)")
            #expect(box.bytes(box.database) == before, "\(arguments) changed the file")
        }
        #expect(try tableNames(box.database) == ["todoItem"])
    }
}
}
