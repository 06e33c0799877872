import Foundation
import GRDB
import SwiduxSQLite
@testable import SwiduxSync
import SwiduxSyncWire
import Testing

/// Changes a rule of the server refused (a push result `applied: false` with a reason):
/// the device takes the server's row and lists the refusal with its conflicts.
@Suite("Refusals")
struct RefusalTests {
    @Test("A refused update takes the server's row, a refused new row is deleted; both listed with their reasons, nothing pushed again")
    func refusedChanges() async throws {
        let fixture = try Fixture()
        try await fixture.flush(folders: [Folder(id: "f1", name: "Inbox")])
        try fixture.pushAndAcknowledge(from: 100)
        try await fixture.flush(folders: [Folder(id: "f1", name: ""), Folder(id: "f2", name: "")],
                                notes: [Note(id: "n1", folderId: "f2", text: "in the refused folder")])
        let pending = try fixture.engine.preparePush()
        let changes = try pending.flatMap { try $0.decoded().changes }
        #expect(changes.map(\.id) == [.text("f1"), .text("f2"), .text("n1")])
        // The server's answer, as it writes it: the reason under the result's extension member.
        let answer = #"""
            {"lastMutationID":\#(pending.last?.id ?? 0),"results":[\#
            {"table":"folder","id":"f1","applied":false,"current":{"table":"folder","id":"f1","version":100,"deleted":false,"columns":{"name":"Inbox","position":0}},"ext":{"reason":"a name has 1 to 50 characters"}},\#
            {"table":"folder","id":"f2","applied":false,"current":{"table":"folder","id":"f2","version":0,"deleted":true},"ext":{"reason":"a name has 1 to 50 characters"}},\#
            {"table":"note","id":"n1","applied":true,"current":{"table":"note","id":"n1","version":101,"deleted":false}}],\#
            "acknowledged":[\#(pending.map { String($0.id) }.joined(separator: ","))],"conflicts":0,"scope":"s"}
            """#
        let read = try PushAnswer.read(Data(answer.utf8))
        #expect(read.results.map(\.reason) == ["a name has 1 to 50 characters", "a name has 1 to 50 characters", nil])
        #expect(read == PushAnswer(try JSONDecoder().decode(PushResponse.self, from: Data(answer.utf8))))
        let acknowledged = try fixture.engine.acknowledge(read, sent: pending)
        #expect(acknowledged.refused == 2)

        // f1 is the server's again; f2 is gone, and its note with it (deleted, and queued).
        let folders = try await fixture.database.writer.read { db in try Folder.fetchAll(db, sql: "SELECT * FROM folder ORDER BY id") }
        #expect(folders == [Folder(id: "f1", name: "Inbox")])
        #expect(try fixture.notes().isEmpty)
        #expect(try fixture.outbox() == ["note n1 D"])
        let listed = try fixture.engine.openConflicts()
        #expect(listed.count == 2)
        #expect(listed.allSatisfy { $0.kind == .refused && $0.reason == "a name has 1 to 50 characters" && $0.serial < 0 })
        #expect(Set(listed.map(\.id)) == [.text("f1"), .text("f2")])
        #expect(listed.map(\.description).sorted() == ["folder t:f1 refused: a name has 1 to 50 characters",
                                                       "folder t:f2 refused: a name has 1 to 50 characters"])
        // Reported once, as renames are.
        #expect(try fixture.engine.takeNewRenames().count == 2)
        #expect(try fixture.engine.takeNewRenames().isEmpty)
        #expect(try fixture.engine.dismiss(listed.map(\.serial)) == 2)
        #expect(try fixture.engine.openConflicts().isEmpty)
    }

    @Test("A result's reason round-trips through JSONEncoder and JSONDecoder under the extension member, and only when set")
    func reasonOnTheWire() throws {
        let row = SyncRow(table: "t", id: .text("a"), version: 3, deleted: false, columns: ["x": .integer(1)])
        let refused = SyncResult(table: "t", id: .text("a"), applied: false, current: row, reason: "no")
        let data = try JSONEncoder().encode(refused)
        #expect(String(decoding: data, as: UTF8.self).contains(#""ext":{"reason":"no"}"#))
        #expect(try JSONDecoder().decode(SyncResult.self, from: data) == refused)
        let applied = SyncResult(table: "t", id: .text("a"), applied: true, current: row)
        #expect(!String(decoding: try JSONEncoder().encode(applied), as: UTF8.self).contains("ext"))
    }
}
