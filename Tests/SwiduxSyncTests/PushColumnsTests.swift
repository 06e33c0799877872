import Foundation
import GRDB
import SwiduxSQLite
@testable import SwiduxSync
import SwiduxSyncWire
import Testing

/// A push reads each row's columns in place from SQLite (issue 31); what it sends must be
/// what the row's `DatabaseValue`s make, for every kind of value.
@Suite("Pushed columns read in place")
struct PushColumnsTests {
    @Test("Text (escapes, non-ASCII, invalid UTF-8, empty), integers, reals, blobs and nulls are pushed as their DatabaseValue is")
    func everyKindOfValue() throws {
        let fixture = try Fixture(before: { database in
            try database.writer.write { db in
                try db.execute(sql: "CREATE TABLE thing (id TEXT PRIMARY KEY NOT NULL, a, b, c)")
                try db.execute(sql: """
                    INSERT INTO thing (id, a, b, c) VALUES
                        ('plain', 'hello', 42, NULL),
                        ('escapes', 'say "hi" \\ back' || char(10) || char(13) || char(9) || char(1) || char(31), -9223372036854775808, 1.5),
                        ('unicode', 'café 🙂 naïve', 9223372036854775807, -0.25),
                        ('invalid', CAST(x'61C328FF62' AS TEXT), x'00FF10', 1e300),
                        ('empty', '', x'', 0.1),
                        ('numeric text', '0042', '1.50', 'null')
                    """)
            }
        })
        let engine = try SyncEngine(writer: fixture.database.writer, tables: [SyncTable(name: "thing")])
        let expected: [String: [String: SyncValue]] = try fixture.database.writer.read { db in
            Dictionary(uniqueKeysWithValues: try Row.fetchAll(db, sql: "SELECT * FROM thing").map { row in
                (row["id"] as String, ["a": SyncValue(row["a"] as DatabaseValue), "b": SyncValue(row["b"] as DatabaseValue),
                                       "c": SyncValue(row["c"] as DatabaseValue)])
            })
        }
        #expect(expected.count == 6)
        // The reference really has every kind (the invalid text repaired, as `String` does).
        #expect(expected["invalid"]?["a"] == .text("a\u{FFFD}(\u{FFFD}b"))
        #expect(expected["invalid"]?["b"] == .blob(Data([0x00, 0xFF, 0x10])))
        #expect(expected["plain"]?["c"] == .null)
        let pending = try engine.preparePush()
        let changes = try pending.flatMap { try $0.decoded().changes }.filter { $0.table == "thing" }
        #expect(changes.count == 6)
        for change in changes {
            guard case .text(let id) = change.id else { Issue.record("id \(change.id)"); continue }
            #expect(change.kind == .insert)
            #expect(change.columns == expected[id], "row \(id)")
        }
    }

    @Test("A row's columns are written in the order of their names, the order the server stores them in")
    func columnsInNameOrder() throws {
        let fixture = try Fixture(before: { database in
            try database.writer.write { db in
                try db.execute(sql: #"CREATE TABLE thing (zeta, id TEXT PRIMARY KEY NOT NULL, "Alpha", mid, "é", "a b")"#)
                try db.execute(sql: #"INSERT INTO thing (zeta, id, "Alpha", mid, "é", "a b") VALUES (1, 'x', 2, 3, 4, 5)"#)
            }
        })
        let engine = try SyncEngine(writer: fixture.database.writer, tables: [SyncTable(name: "thing")])
        let payload = try #require(try engine.preparePush().first?.payload)
        let text = String(decoding: payload, as: UTF8.self)
        let columns = try #require(text.range(of: #""columns":{"#))
        let names = ["Alpha", "a b", "mid", "zeta", "é"]
        #expect(names == names.sorted())
        #expect(text[columns.upperBound...].hasPrefix(#""Alpha":2,"a b":5,"mid":3,"zeta":1,"é":4}"#), "\(text)")
    }

    @Test("Columns whose names hold a double quote, the id column too, are queued and pushed: every name is quoted with its quote doubled")
    func namesWithDoubleQuotes() throws {
        let fixture = try Fixture(before: { database in
            try database.writer.write { db in
                try db.execute(sql: #"CREATE TABLE thing ("the ""id""" TEXT PRIMARY KEY NOT NULL, "say ""hi""", plain)"#)
                try db.execute(sql: #"INSERT INTO thing VALUES ('x', 1, 2), ('y', 3, 4)"#)
            }
        })
        let table = SyncTable(name: "thing", idColumn: #"the "id""#)
        let engine = try SyncEngine(writer: fixture.database.writer, tables: [table])
        let changes = try engine.preparePush().flatMap { try $0.decoded().changes }.filter { $0.table == table.name }
        #expect(Set(changes.map(\.id)) == [.text("x"), .text("y")])
        #expect(changes.first { $0.id == .text("x") }?.columns == [#"say "hi""#: .integer(1), "plain": .integer(2)])
        // A local edit of the quoted column is queued by the triggers like any other.
        try fixture.database.writer.write { db in
            try db.execute(sql: #"UPDATE thing SET "say ""hi""" = 5 WHERE "the ""id""" = 'y'"#)
        }
        let queued = try fixture.database.writer.read { db in
            try Row.fetchOne(db, sql: "SELECT op, cols FROM swidux_sync_outbox WHERE tbl = 'thing' AND rid = 'y' ORDER BY seq DESC")
        }
        #expect(queued?["op"] as String? == "U")
        #expect((queued?["cols"] as String?)?.contains(#"say "hi""#) == true, "\(String(describing: queued))")
    }
}
