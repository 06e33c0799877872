import Foundation
import GRDB
import SwiduxSQLite
@testable import SwiduxSync
import SwiduxSyncWire
import Testing

/// A pulled page's live rows are written many per statement (issue 31); what a row by row
/// apply did must still hold for every row.
@Suite("Pulled pages written many rows per statement")
struct PageWriteTests {
    /// `tag(id, name UNIQUE NOT NULL, note)`, synced.
    static func fixture() throws -> (Fixture, SyncEngine) {
        let fixture = try Fixture(before: { database in
            try database.writer.write { db in
                try db.execute(sql: "CREATE TABLE tag (id TEXT PRIMARY KEY NOT NULL, name TEXT NOT NULL UNIQUE, note TEXT)")
            }
        })
        return (fixture, try SyncEngine(writer: fixture.database.writer, tables: [SyncTable(name: "tag")]))
    }

    static func tag(_ index: Int, name: SyncValue? = nil, version: Int64, note: Bool = false) -> SyncRow {
        var columns: [String: SyncValue] = ["name": name ?? .text("tag \(index)")]
        if note { columns["note"] = .text("note \(index)") }
        return SyncRow(table: "tag", id: .text(String(format: "t%03d", index)), version: version, deleted: false, columns: columns)
    }

    static func names(_ fixture: Fixture) throws -> [String: String] {
        try fixture.database.writer.read { db in
            Dictionary(uniqueKeysWithValues: try Row.fetchAll(db, sql: "SELECT id, name FROM tag").map { ($0[0] as String, $0[1] as String) })
        }
    }

    /// The recorded server version of each `tag` row, by id.
    static func versions(_ fixture: Fixture) async throws -> [String: Int64] {
        try await fixture.database.writer.read { db in
            Dictionary(uniqueKeysWithValues: try Row.fetchAll(db, sql: "SELECT rid, version FROM swidux_sync_version WHERE tbl = 'tag'")
                .map { ($0[0] as String, $0[1] as Int64) })
        }
    }

    @Test("A row a constraint refuses is parked alone: the other rows of its statement, and of the page, are written (the row after it was parked too); a row whose unique name a row before it holds is renamed and written")
    func refusedRowsParkedAlone() async throws {
        let (fixture, engine) = try Self.fixture()
        var rows = (0..<150).map { Self.tag($0, version: Int64($0 + 1)) }
        rows[70] = Self.tag(70, name: .text("tag 10"), version: 71)   // unique name taken by row 10
        rows[140] = Self.tag(140, name: .null, version: 141)          // not null
        let result = try engine.apply(PullResponse(rows: rows, cursor: 150, hasMore: false))
        #expect(result.applied == 149)
        #expect(result.parked == 1)
        let names = try Self.names(fixture)
        #expect(names.count == 149, "missing: \((0..<150).map { String(format: "t%03d", $0) }.filter { names[$0] == nil })")
        #expect(names["t140"] == nil)
        // Later in the server's order than row 10: renamed, the rename queued as a local edit.
        #expect(names["t070"] == "tag 10 (2)" && names["t010"] == "tag 10")
        #expect(names["t069"] == "tag 69" && names["t071"] == "tag 71" && names["t149"] == "tag 149")
        #expect(try engine.parkedCount() == 1)
        // Applied rows are the server's: no outbox entry (no echo) but the rename's, their versions recorded.
        #expect(try fixture.outbox() == ["tag t070 U"])
        let versions = try await Self.versions(fixture)
        #expect(versions.count == 149)
        #expect(versions["t069"] == 70 && versions["t149"] == 150 && versions["t070"] == 71)
        let renames = try engine.openConflicts()
        #expect(renames.map(\.kind) == [.renamed] && renames.first?.id == .text("t070"))
        #expect(renames.first?.replaced == .text("tag 10") && renames.first?.kept == .text("tag 10 (2)"))
    }

    @Test("A row an older version parked because a local row held its unique name is renamed at the next pull; the earlier local row keeps its name")
    func parkedClashResolved() async throws {
        let (fixture, engine) = try Self.fixture()
        _ = try engine.apply(PullResponse(rows: [Self.tag(1, name: .text("home"), version: 1)], cursor: 1, hasMore: false))
        // What an older version left: the later row parked, waiting forever.
        try await fixture.database.writer.write { db in
            try engine.park(Self.tag(2, name: .text("home"), version: 2), db)
        }
        let result = try engine.apply(PullResponse(rows: [], cursor: 2, hasMore: false))
        #expect(result.applied == 1 && result.parked == 0)
        #expect(try engine.parkedCount() == 0)
        #expect(try Self.names(fixture) == ["t001": "home", "t002": "home (2)"])
        #expect(try fixture.outbox() == ["tag t002 U"])
        #expect(try engine.takeNewRenames().map(\.kept) == [.text("home (2)")])
        // Reported once.
        #expect(try engine.takeNewRenames().isEmpty)
    }

    @Test("A local row not pushed yet that holds a pulled row's unique name is the one renamed; the pulled row keeps it")
    func localUnpushedRowRenamed() async throws {
        let (fixture, engine) = try Self.fixture()
        try await fixture.database.writer.write { db in
            try db.execute(sql: "INSERT INTO tag (id, name) VALUES ('mine', 'home')")
        }
        let result = try engine.apply(PullResponse(rows: [Self.tag(1, name: .text("home"), version: 1)], cursor: 1, hasMore: false))
        #expect(result.applied == 1 && result.parked == 0)
        #expect(try Self.names(fixture) == ["t001": "home", "mine": "home (2)"])
        // Its insert is pushed with the new name (the insert and the rename fold into one insert).
        #expect(try fixture.outbox() == ["tag mine I", "tag mine U"])
        #expect(try engine.openConflicts().map(\.id) == [.text("mine")])
    }

    @Test("Rows with other columns, and an id twice in a page, are written as a row by row apply would")
    func shapesAndRepeatedIDs() async throws {
        let (fixture, engine) = try Self.fixture()
        var rows: [SyncRow] = []
        for index in 0..<100 { rows.append(Self.tag(index, version: Int64(index + 1), note: index % 3 == 0)) }
        // t005 again, later in the page, renamed: the later version wins.
        rows.append(Self.tag(5, name: .text("renamed"), version: 101))
        let result = try engine.apply(PullResponse(rows: rows, cursor: 101, hasMore: false))
        #expect(result.applied == 101)
        let names = try Self.names(fixture)
        #expect(names.count == 100)
        #expect(names["t005"] == "renamed")
        let notes = try await fixture.database.writer.read { db in
            try Row.fetchAll(db, sql: "SELECT id, note FROM tag ORDER BY id").map { ($0[0] as String, $0[1] as String?) }
        }
        #expect(notes.filter { $0.1 != nil }.map(\.0) == (0..<100).filter { $0 % 3 == 0 }.map { String(format: "t%03d", $0) })
        #expect(try fixture.outbox().isEmpty)
        #expect(try await Self.versions(fixture)["t005"] == 101)
    }

    /// The outbox's last sequence ever given, and whether the `applying` mark is left.
    static func outboxState(_ fixture: Fixture) async throws -> (sequence: Int64, marked: Bool) {
        try await fixture.database.writer.read { db in
            (try SyncSchema.main.lastOutboxSequence(db),
             try Bool.fetchOne(db, sql: "SELECT 1 FROM swidux_logged_table WHERE applying") ?? false)
        }
    }

    @Test("Pulled rows written many per statement write no outbox entry at all (none written then deleted), and local changes after the page still do")
    func pulledRowsWriteNoOutboxEntry() async throws {
        let (fixture, engine) = try Self.fixture()
        let before = try await Self.outboxState(fixture)
        let first = try engine.apply(PullResponse(rows: (0..<300).map { Self.tag($0, version: Int64($0 + 1)) }, cursor: 300, hasMore: false))
        #expect(first.applied == 300)
        let clean = try await Self.outboxState(fixture)
        #expect(clean.sequence == before.sequence && !clean.marked)
        // A refused row: the rest of its batch is written row by row (entries, removed as echoes).
        var rows = (300..<600).map { Self.tag($0, version: Int64($0 + 1)) }
        rows[100] = Self.tag(400, name: .null, version: 401)   // not null
        let second = try engine.apply(PullResponse(rows: rows, cursor: 600, hasMore: false))
        #expect(second.applied == 299 && second.parked == 1)
        let after = try await Self.outboxState(fixture)
        #expect(!after.marked)
        #expect(after.sequence - clean.sequence < 4 * 64)
        #expect(try fixture.outbox().isEmpty)
        try await fixture.database.writer.write { db in
            try db.execute(sql: "UPDATE tag SET note = 'local' WHERE id = 't005'")
            try db.execute(sql: "INSERT INTO tag (id, name) VALUES ('local', 'local tag')")
        }
        #expect(try fixture.outbox() == ["tag t005 U", "tag local I"])
    }

    @Test("A file whose outbox has its own triggers (an earlier version's) loses them, is fed from the journal, and keeps its queued entries")
    func oldTriggersUpgraded() async throws {
        let (fixture, _) = try Self.fixture()
        try await fixture.database.writer.write { db in
            // The outbox's own triggers as an earlier version made them, the journal's missing.
            for name in ChangeJournal.triggerNames("tag") + [SyncSchema.main.feedName] {
                try db.execute(sql: "DROP TRIGGER \(name)")
            }
            for (suffix, body) in [("insert", "INSERT INTO swidux_sync_outbox (tbl, rid, op) VALUES ('tag', NEW.id, 'I');"),
                                   ("update", "INSERT INTO swidux_sync_outbox (tbl, rid, op) VALUES ('tag', NEW.id, 'U');"),
                                   ("delete", "INSERT INTO swidux_sync_outbox (tbl, rid, op) VALUES ('tag', OLD.id, 'D');")] {
                try db.execute(sql: "CREATE TRIGGER swidux_sync_tag_\(suffix) AFTER \(suffix.uppercased()) ON tag BEGIN \(body) END")
            }
            try db.execute(sql: "INSERT INTO tag (id, name) VALUES ('old', 'queued before')")
            #expect(try !SyncSchema.main.isInstalled(in: db, tables: [SyncTable(name: "tag")]))
        }
        let engine = try SyncEngine(writer: fixture.database.writer, tables: [SyncTable(name: "tag")])
        try await fixture.database.writer.read { db in
            #expect(try SyncSchema.main.isInstalled(in: db, tables: [SyncTable(name: "tag")]))
            let triggers = try String.fetchAll(db, sql: """
                SELECT name FROM sqlite_master WHERE type = 'trigger' AND (tbl_name = 'tag' OR name = ?) ORDER BY name
                """, arguments: [SyncSchema.main.feedName])
            #expect(triggers == ChangeJournal.triggerNames("tag").sorted() + [SyncSchema.main.feedName])
        }
        #expect(try fixture.outbox() == ["tag old I"])
        _ = try engine.apply(PullResponse(rows: (0..<10).map { Self.tag($0, version: Int64($0 + 1)) }, cursor: 10, hasMore: false))
        #expect(try fixture.outbox() == ["tag old I"])
        // One entry per change, fed from the journal.
        try await fixture.database.writer.write { db in
            try db.execute(sql: "UPDATE tag SET note = 'x' WHERE id = 't001'; DELETE FROM tag WHERE id = 't002'")
        }
        #expect(try fixture.outbox() == ["tag old I", "tag t001 U", "tag t002 D"])
    }

    @Test("A row twice in a page with the same version is written once, versions looked up or not")
    func sameVersionTwice() async throws {
        let (_, engine) = try Self.fixture()
        // Small pages look up recorded versions once one exists.
        for (page, lookedUp) in [(0, false), (1, true)] {
            let base = page * 10
            let rows = [Self.tag(base + 1, version: Int64(base + 1)), Self.tag(base + 1, version: Int64(base + 1)),
                        Self.tag(base + 2, version: Int64(base + 2))]
            let result = try engine.apply(PullResponse(rows: rows, cursor: Int64(base + 2), hasMore: false))
            #expect(result.applied == 2, "versions looked up: \(lookedUp)")
        }
    }
}
