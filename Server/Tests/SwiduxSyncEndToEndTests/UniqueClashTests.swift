import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import GRDB
import PostgresTestSupport
import SwiduxSQLite
import SwiduxSync
import SwiduxSyncWire
import Testing

/// Two devices that each create a list of one name offline, where the app's schema makes
/// list names unique: after syncing, both lists and the items in them are on both devices,
/// the later list renamed, the rename listed on the device that made it; nothing waits.
@Suite("Unique names across devices", .serialized)
struct UniqueClashTests {
    /// Lists with unique names, and items in them.
    static let tables = [SyncTable(name: "list"), SyncTable(name: "item")]
    static let migrations = SwiduxMigrations { m in
        m.register("v1") { db in
            try db.execute(sql: """
                CREATE TABLE list (id TEXT PRIMARY KEY NOT NULL, position INTEGER NOT NULL DEFAULT 0, name TEXT NOT NULL UNIQUE);
                CREATE TABLE item (id TEXT PRIMARY KEY NOT NULL, position INTEGER NOT NULL DEFAULT 0,
                                   listId TEXT NOT NULL REFERENCES list(id) ON DELETE CASCADE, title TEXT NOT NULL);
                CREATE INDEX item_list ON item(listId);
                """)
        }
    }

    struct ListsDevice {
        let database: SwiduxDatabase
        let client: SyncClient

        init(name: String, directory: URL, fixture: SyncServerFixture) throws {
            database = try SwiduxDatabase(path: directory.appendingPathComponent("\(name).sqlite").path, migrations: UniqueClashTests.migrations)
            client = try SyncClient(database: database, server: fixture.server.url, token: fixture.token, tables: UniqueClashTests.tables)
        }

        /// A list and an item in it, in one local transaction.
        func add(list: String, named name: String, item: String) async throws {
            try await database.performAtomically([{ db in
                try db.execute(sql: "INSERT INTO list (id, position, name) VALUES (?, 0, ?)", arguments: [list, name])
                try db.execute(sql: "INSERT INTO item (id, position, listId, title) VALUES (?, 0, ?, ?)", arguments: [item + "-id", list, item])
            }])
        }

        /// List id → name.
        func lists() async throws -> [String: String] {
            try await database.writer.read { db in
                Dictionary(uniqueKeysWithValues: try Row.fetchAll(db, sql: "SELECT id, name FROM list").map { ($0["id"], $0["name"]) })
            }
        }

        /// Item title → its list's name.
        func items() async throws -> [String: String] {
            try await database.writer.read { db in
                Dictionary(uniqueKeysWithValues: try Row.fetchAll(db, sql: "SELECT i.title, l.name FROM item i JOIN list l ON l.id = i.listId")
                    .map { ($0[0], $0[1]) })
            }
        }
    }

    private func withFixture(_ space: String, _ body: (SyncServerFixture, URL) async throws -> Void) async throws {
        let fixture = try await SyncServerFixture.start(space: space)
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        do {
            try await body(fixture, directory)
        } catch {
            await fixture.stop()
            throw error
        }
        await fixture.stop()
    }

    @Test("the list of the device that syncs second becomes \"Shopping (2)\"; both items are on both devices", arguments: [false, true])
    func sameNameOffline(bFirst: Bool) async throws {
        try await withFixture("unique-\(bFirst)") { fixture, directory in
            let a = try ListsDevice(name: "a", directory: directory, fixture: fixture)
            let b = try ListsDevice(name: "b", directory: directory, fixture: fixture)
            try await a.add(list: "la", named: "Shopping", item: "milk")
            try await b.add(list: "lb", named: "Shopping", item: "eggs")
            let (first, second) = bFirst ? (b, a) : (a, b)
            let (firstList, secondList) = bFirst ? ("lb", "la") : ("la", "lb")
            try await first.client.sync()
            // The second device pushes its list (later in the server's order), then pulls the
            // first one's: its own is renamed, and the rename pushed in the same sync.
            let renaming = try await second.client.sync()
            #expect(renaming.parked == 0 && renaming.pending == 0, "\(renaming)")
            #expect(renaming.conflicts.count == 1)
            let rename = try #require(renaming.conflicts.first)
            #expect(rename.kind == .renamed && rename.table == "list" && rename.id == .text(secondList) && rename.column == "name")
            #expect(rename.replaced == .text("Shopping") && rename.kept == .text("Shopping (2)"))
            let pulled = try await first.client.sync()
            #expect(pulled.parked == 0 && pulled.pending == 0 && pulled.conflicts.isEmpty, "\(pulled)")
            try await second.client.sync()
            let expected = [firstList: "Shopping", secondList: "Shopping (2)"]
            #expect(try await a.lists() == expected)
            #expect(try await b.lists() == expected)
            let items = ["milk": bFirst ? "Shopping (2)" : "Shopping", "eggs": bFirst ? "Shopping" : "Shopping (2)"]
            #expect(try await a.items() == items)
            #expect(try await b.items() == items)
            // Listed once, on the device whose list was renamed, until dismissed.
            #expect(try await second.client.conflicts() == [rename])
            #expect(try await first.client.conflicts().isEmpty)
            let server = try await serverLists(fixture)
            #expect(server == expected)
        }
    }

    @Test("a pulled list later than the local one of its name is the one renamed, and the rename is pushed")
    func pulledRowLater() async throws {
        try await withFixture("unique-pulled") { fixture, directory in
            let a = try ListsDevice(name: "a", directory: directory, fixture: fixture)
            try await a.add(list: "la", named: "Shopping", item: "milk")
            try await a.client.sync()
            // Another client's list of the same name, pushed after a's (it never pulled a's).
            try await rawPush(fixture, client: "other", [
                SyncChange(table: "list", id: .text("lx"), kind: .insert, columns: ["name": .text("Shopping"), "position": .integer(0)]),
                SyncChange(table: "item", id: .text("bread-id"), kind: .insert,
                           columns: ["listId": .text("lx"), "title": .text("bread"), "position": .integer(0)]),
            ])
            // a also holds a "Shopping (2)" already: the rename takes the next free number.
            try await a.add(list: "l2", named: "Shopping (2)", item: "tea")
            let report = try await a.client.sync()
            #expect(report.parked == 0 && report.pending == 0, "\(report)")
            #expect(report.conflicts.map(\.kind) == [.renamed])
            #expect(report.conflicts.first?.id == .text("lx") && report.conflicts.first?.kept == .text("Shopping (3)"))
            let expected = ["la": "Shopping", "l2": "Shopping (2)", "lx": "Shopping (3)"]
            #expect(try await a.lists() == expected)
            #expect(try await a.items() == ["milk": "Shopping", "tea": "Shopping (2)", "bread": "Shopping (3)"])
            #expect(try await serverLists(fixture) == expected)
            // A new device gets the same lists, nothing waiting, nothing to list.
            let c = try ListsDevice(name: "c", directory: directory, fixture: fixture)
            let joined = try await c.client.sync()
            #expect(joined.parked == 0 && joined.conflicts.isEmpty, "\(joined)")
            #expect(try await c.lists() == expected)
            #expect(try await c.items() == ["milk": "Shopping", "tea": "Shopping (2)", "bread": "Shopping (3)"])
        }
    }

    @Test("an app's renamer writes the shown name and a key derived from it; the resolver never gets a rename")
    func renamer() async throws {
        try await withFixture("unique-renamer") { fixture, directory in
            let a = try ListsDevice(name: "a", directory: directory, fixture: fixture)
            let b = try ListsDevice(name: "b", directory: directory, fixture: fixture)
            for device in [a, b] {
                device.client.setUniqueRenamer(for: "list") { clash in
                    guard case .text(let name)? = clash.columns["name"] else { return nil }
                    return .init(column: "name", value: .text("\(name) #\(clash.number)"))
                }
                await device.client.setResolver(for: "list") { _ in .text("resolved") }
            }
            try await a.add(list: "la", named: "Shopping", item: "milk")
            try await b.add(list: "lb", named: "Shopping", item: "eggs")
            try await a.client.sync()
            try await b.client.sync()
            try await a.client.sync()
            #expect(try await a.lists() == ["la": "Shopping", "lb": "Shopping #2"])
            #expect(try await b.lists() == ["la": "Shopping", "lb": "Shopping #2"])
            #expect(try await b.client.conflicts().map(\.kind) == [.renamed])
        }
    }

    /// The server's live lists: id → name.
    private func serverLists(_ fixture: SyncServerFixture) async throws -> [String: String] {
        var lists: [String: String] = [:]
        var cursor: Int64 = 0
        while true {
            var components = URLComponents(url: fixture.server.url.appendingPathComponent(SyncProtocol.pullPath), resolvingAgainstBaseURL: false)!
            components.queryItems = [URLQueryItem(name: "after", value: String(cursor)), URLQueryItem(name: "limit", value: "10000")]
            var request = URLRequest(url: components.url!)
            request.setValue("Bearer \(fixture.token)", forHTTPHeaderField: "Authorization")
            let (data, _) = try await URLSession.shared.data(for: request)
            let page = try JSONDecoder().decode(PullResponse.self, from: data)
            for row in page.rows where row.table == "list" {
                guard case .text(let id) = row.id else { continue }
                if case .text(let name)? = row.columns?["name"], !row.deleted { lists[id] = name } else { lists[id] = nil }
            }
            cursor = page.cursor
            if !page.hasMore { return lists }
        }
    }

    /// Pushes `changes` as client `client`, as another device would.
    private func rawPush(_ fixture: SyncServerFixture, client: String, _ changes: [SyncChange]) async throws {
        var request = URLRequest(url: fixture.server.url.appendingPathComponent(SyncProtocol.pushPath))
        request.httpMethod = "POST"
        request.httpBody = try JSONEncoder().encode(PushRequest(clientID: client, mutations: [SyncMutation(id: 1, changes: changes)]))
        request.setValue("Bearer \(fixture.token)", forHTTPHeaderField: "Authorization")
        request.setValue("application/json", forHTTPHeaderField: "Content-Type")
        let (data, response) = try await URLSession.shared.data(for: request)
        #expect((response as? HTTPURLResponse)?.statusCode == 200, "\(String(decoding: data, as: UTF8.self))")
    }
}
