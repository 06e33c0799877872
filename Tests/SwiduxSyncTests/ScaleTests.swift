import Foundation
import GRDB
import Swidux
import SwiduxSQLite
@testable import SwiduxSync
import SwiduxSyncWire
import Testing

/// A first sync at scale (issue 31): pushes built one request at a time, pulled pages
/// applied as one change, the client's own rows not pulled back.
@Suite("Sync at scale")
struct ScaleTests {
    @Test("A push is built one request at a time: the rows left out stay queued and go in the next one, each once")
    func pushBuiltPerRequest() async throws {
        let fixture = try Fixture(mutationBytes: 400, before: { database in
            try database.writer.write { db in
                try db.execute(sql: "INSERT INTO folder (id, position, name) VALUES ('f', 0, 'F')")
                for index in 0..<60 {
                    try db.execute(sql: "INSERT INTO note (id, position, folderId, text) VALUES (?, ?, 'f', ?)",
                                   arguments: [String(format: "n%02d", index), index, "text \(index) " + String(repeating: "x", count: 40)])
                }
            }
        })
        var pushed: [String] = []
        var requests = 0
        var version: Int64 = 100
        while true {
            let pending = try fixture.engine.preparePush(requestBytes: 2000)
            if pending.isEmpty { break }
            requests += 1
            // One request's worth (the first mutation always fits), cut in mutations under 400 bytes.
            #expect(pending.dropLast().reduce(0) { $0 + $1.payload.count } <= 2000)
            var results: [SyncResult] = []
            for mutation in pending {
                for change in try mutation.decoded().changes {
                    pushed.append(change.id.key)
                    #expect(change.kind == .insert)
                    results.append(SyncResult(table: change.table, id: change.id, applied: true, current: SyncRow(
                        table: change.table, id: change.id, version: version, deleted: false, columns: change.columns)))
                    version += 1
                }
            }
            _ = try fixture.engine.acknowledge(PushResponse(lastMutationID: pending.last!.id, results: results,
                                                            acknowledged: pending.map(\.id)), sent: pending)
        }
        #expect(requests > 3)
        #expect(pushed.count == 61)
        #expect(Set(pushed).count == 61)
        #expect(pushed.first == "t:f")
        #expect(try fixture.outbox().isEmpty)
        #expect(try fixture.engine.pendingCount() == 0)
    }

    @Test("Pushed JSON decodes to the row's values: text with quotes, control characters and emoji, reals, blobs, nulls")
    func pushedValuesRoundTrip() async throws {
        let fixture = try Fixture(before: { database in
            try database.writer.write { db in
                try db.execute(sql: "CREATE TABLE misc (id TEXT PRIMARY KEY NOT NULL, a, b, c, d)")
                try db.execute(sql: "INSERT INTO misc (id, a, b, c, d) VALUES (?, ?, ?, ?, NULL)",
                               arguments: ["q\"\\\n\u{01}é😀", 1.5e300, Data([0, 1, 255]), -42])
            }
        })
        let engine = try SyncEngine(writer: fixture.database.writer, tables: [SyncTable(name: "misc")])
        let pending = try engine.preparePush()
        let change = try #require(pending.first?.decoded().changes.first)
        #expect(change.id == .text("q\"\\\n\u{01}é😀"))
        #expect(change.columns == ["a": .real(1.5e300), "b": .blob(Data([0, 1, 255])), "c": .integer(-42), "d": .null])
        #expect(change.kind == .insert && change.baseVersion == nil)
    }

    @Test("A store following the database takes a pulled page of many rows in one change: observers run once per page")
    @MainActor
    func pageIsOneChange() async throws {
        let fixture = try Fixture()
        var state = NotesState()
        let persistence = try fixture.database.persistence(hydrating: &state, [
            .entities(\.notes, in: NotesSchema.notes),
            .entities(\.folders, in: NotesSchema.folders),
        ])
        let store = Store(initialState: state, reducer: NotesReducer(), environment: (), persistence: persistence)
        try store.follow(fixture.database, every: .milliseconds(5))
        var runs = 0
        var counts: [Int] = []
        let token = store.observe { store in
            runs += 1
            counts.append(store.notes.count)
        }
        let rows = [folderRow("f", "pulled", version: 1)]
            + (0..<200).map { noteRow(String(format: "n%03d", $0), folder: "f", "note \($0)", version: Int64($0 + 2)) }
        let result = try await Task.detached { try fixture.engine.apply(PullResponse(rows: rows, cursor: 201, hasMore: false)) }.value
        #expect(result.applied == 201)
        #expect(await eventually { store.state.notes.count == 200 })
        try await Task.sleep(for: .milliseconds(100))
        // Once at the start, once for the page: never one run per row.
        #expect(runs == 2)
        #expect(counts == [0, 200])
        token.cancel()
    }

    @Test("Own versions: a pull skips the ranges its pushes wrote, and still gets every other client's row")
    func ownVersionsSkipped() {
        var own = OwnVersions()
        own.note(10...19)
        own.note(20...29)   // contiguous: one range
        own.note(40...49)
        #expect(own.ranges == [10...29, 40...49])
        // Before the first range: one row is asked for first.
        let probe1 = own.probe(after: 0)
        #expect(probe1)
        // Another client's row (5) came before it: applied, the cursor stays at it.
        let next2 = own.cursor(after: PullResponse(rows: [SyncRow(table: "t", id: .integer(1), version: 5, deleted: true)], cursor: 5, hasMore: true))
        #expect(next2 == 5)
        // Already probed: a full page; it reaches 10, so everything before was seen: jump to 29.
        let probe3 = own.probe(after: 5)
        #expect(!probe3)
        let next4 = own.cursor(after: PullResponse(rows: [], cursor: 12, hasMore: true))
        #expect(next4 == 29)
        #expect(own.ranges == [40...49])
        // Rows of others between 29 and 40 (35) are pulled; then the probe reaches 40.
        let probe5 = own.probe(after: 29)
        #expect(probe5)
        let next6 = own.cursor(after: PullResponse(rows: [], cursor: 35, hasMore: true))
        #expect(next6 == 35)
        let probe7 = own.probe(after: 35)
        #expect(!probe7)
        let next8 = own.cursor(after: PullResponse(rows: [], cursor: 41, hasMore: true))
        #expect(next8 == 49)
        #expect(own.ranges.isEmpty)
        // A last page forgets every range; a range passed by the cursor is dropped.
        own.note(60...69)
        let next9 = own.cursor(after: PullResponse(rows: [], cursor: 50, hasMore: false))
        #expect(next9 == 50)
        #expect(own.ranges.isEmpty)
        own.note(70...79)
        let probe10 = own.probe(after: 80)
        #expect(!probe10)
        #expect(own.ranges.isEmpty)
    }

    @Test("A push answer's own versions: live rows it wrote, not refused rows nor deletions (their version may be older)")
    func pushAnswerOwnVersions() {
        func result(_ version: Int64, applied: Bool = true, deleted: Bool = false) -> SyncResult {
            SyncResult(table: "t", id: .integer(version), applied: applied,
                       current: SyncRow(table: "t", id: .integer(version), version: version, deleted: deleted))
        }
        let answer = PushAnswer(PushResponse(lastMutationID: 1, results: [result(3, applied: false, deleted: true), result(12), result(15),
                                                                          result(7, deleted: true)], acknowledged: [1]))
        #expect(answer.ownVersions == 12...15)
        // From an older server (no acknowledged ids): nothing is taken as own.
        #expect(PushAnswer(PushResponse(lastMutationID: 1, results: [result(12)])).ownVersions == nil)
    }
}
