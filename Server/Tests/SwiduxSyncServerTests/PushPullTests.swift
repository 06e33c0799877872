import Foundation
import SwiduxSyncWire
import Testing

@Suite("Push and pull")
struct PushPullTests {
    @Test("a pushed change comes back by pull, with every value type intact")
    func roundTrip() async throws {
        try await TestServer.with { server in
            let a = try await server.client(space: "home")
            let b = try await server.client(space: "home")
            let columns: [String: SyncValue] = [
                "title": .text("Buy milk ✓ \u{0}"), "n": .integer(Int64.max), "r": .real(0.1), "neg": .real(-2.5e-300),
                "b": .blob(Data([0, 1, 255])), "none": .null,
            ]
            let change = SyncChange(table: "todo", id: .integer(42), kind: .insert, columns: columns)
            let response = try await a.push([change])
            #expect(response.lastMutationID == 1)
            #expect(response.results.count == 1 && response.results[0].applied)
            let page = try await b.pull()
            #expect(page.rows == [SyncRow(table: "todo", id: .integer(42), version: response.results[0].current.version,
                                          deleted: false, columns: columns)])
            #expect(page.cursor == response.results[0].current.version)
            #expect(!page.hasMore)
            // Nothing after the cursor.
            #expect(try await b.pull(after: page.cursor).rows.isEmpty)
        }
    }

    @Test("awkward names and values come back unchanged in the push answer, the pull page and a replay (issue 31: hand-written JSON)")
    func awkwardValues() async throws {
        try await TestServer.with { server in
            let a = try await server.client(space: "home")
            let text = "quote \" backslash \\ slash / tab \t newline \n bell \u{7} nul \u{0} é ✓ 🚀 \u{1F}"
            let columns: [String: SyncValue] = [
                text: .text(text), "": .text(""), "min": .integer(Int64.min), "max": .integer(Int64.max),
                "tiny": .real(.leastNonzeroMagnitude), "huge": .real(1.7976931348623157e308), "negativeZero": .real(-0.0), "third": .real(1.0 / 3),
                "whole": .real(2), "empty": .blob(Data()), "bytes": .blob(Data((0...255).map(UInt8.init))), "none": .null,
            ]
            let changes = [
                // Not `text`: an id cannot hold U+0000.
                SyncChange(table: "todo", id: .text("quote \" backslash \\ slash / é 🚀 \u{1F}"), kind: .insert, columns: columns),
                SyncChange(table: "todo", id: .real(-1.5), kind: .insert, columns: ["a": .integer(1)]),
                SyncChange(table: "todo", id: .blob(Data([0, 34, 92])), kind: .insert, columns: [:]),
                SyncChange(table: "todo", id: .integer(-7), kind: .delete),
            ]
            let request = PushRequest(clientID: a.clientID, mutations: [SyncMutation(id: 1, changes: changes)])
            let response = try await a.push(request)
            let expected = changes.map { change in
                (change.table, change.id, change.kind == .delete, change.columns)
            }
            #expect(response.results.map { [$0.current.table, $0.current.id.key, "\($0.current.deleted)"] }
                    == expected.map { [$0.0, $0.1.key, "\($0.2)"] })
            #expect(response.results.map(\.current.columns) == expected.map(\.3))
            #expect(response.results.map(\.id) == changes.map(\.id))
            let rows = try await a.pull().rows
            #expect(rows.map(\.id) == changes.map(\.id))
            #expect(rows.map(\.columns) == changes.map(\.columns))
            #expect(rows.map(\.version) == response.results.map(\.current.version))
            // The same request again is a replay, answered with the same results.
            #expect(try await a.push(request).results == response.results)
            // Asked without the columns (`resultColumns: false`, as SwiduxSync asks), the
            // same results without them, and nothing else changed.
            var lean = request
            lean.resultColumns = false
            let leanResults = try await a.push(lean).results
            #expect(leanResults.map(\.current.columns) == Array(repeating: nil, count: changes.count))
            #expect(leanResults == response.results.map { result in
                var result = result
                result.current.columns = nil
                return result
            })
            #expect(try await a.pull().rows.map(\.columns) == changes.map(\.columns))
        }
    }

    @Test("resultColumns false: the answer's rows carry no columns, and what is applied and pulled is the same (issue 31)")
    func resultsWithoutColumns() async throws {
        try await TestServer.with { server in
            let a = try await server.client(space: "home")
            let b = try await server.client(space: "home")
            let first = try await a.push([todo("1"), todo("2"), todo("3")])
            // Inserts, an update, a delete, and a stale update refused by b's delete.
            _ = try await b.push([todo("3", .delete)])
            let changes = [todo("4"), todo("1", .update, title: "one"), todo("2", .delete),
                           todo("3", .update, title: "stale", base: first.results[2].current.version)]
            let lean = try await a.push(PushRequest(clientID: a.clientID, mutations: [SyncMutation(id: 2, changes: changes)],
                                                    resultColumns: false))
            #expect(lean.results.map(\.applied) == [true, true, true, false])
            #expect(lean.results.map(\.current.deleted) == [false, false, true, true])
            #expect(lean.results.allSatisfy { $0.current.columns == nil })
            let rows = try await b.pull().rows
            #expect(rows.filter { !$0.deleted }.map(\.columns) == [todo("4").columns, todo("1", .update, title: "one").columns])
            #expect(rows.suffix(3).map(\.version) == lean.results.prefix(3).map(\.current.version))
            // `true` is the default's answer: the columns of live rows.
            let full = try await a.push(PushRequest(clientID: a.clientID, mutations: [SyncMutation(id: 3, changes: [todo("5")])],
                                                    resultColumns: true))
            #expect(full.results.map(\.current.columns) == [todo("5").columns])
        }
    }

    @Test("versions increase in the order changes were applied; each row once, in its latest state")
    func versionOrder() async throws {
        try await TestServer.with { server in
            let a = try await server.client(space: "home")
            try await a.push([todo("1"), todo("2"), todo("3")])
            try await a.push([todo("2", .update, title: "two")])
            try await a.push([todo("4")])
            let rows = try await a.pull().rows
            #expect(rows.map(\.id) == [.text("1"), .text("3"), .text("2"), .text("4")])
            #expect(rows.map(\.version) == rows.map(\.version).sorted())
            #expect(Set(rows.map(\.version)).count == 4)
            #expect(rows[2].columns?["title"] == .text("two"))
        }
    }

    @Test("pull pages: limit rows each, hasMore until the last page, the cursor moves")
    func paging() async throws {
        try await TestServer.with { server in
            let a = try await server.client(space: "home")
            try await a.push((1...25).map { todo(String(format: "%02d", $0)) })
            var cursor: Int64 = 0
            var pages: [[SyncRow]] = []
            while true {
                let page = try await a.pull(after: cursor, limit: 10)
                pages.append(page.rows)
                #expect(page.cursor == page.rows.last?.version ?? cursor)
                cursor = page.cursor
                if !page.hasMore { break }
            }
            #expect(pages.map(\.count) == [10, 10, 5])
            #expect(pages.flatMap { $0 }.map(\.id) == (1...25).map { .text(String(format: "%02d", $0)) })
            // Exactly at the limit: no more.
            let exact = try await a.pull(after: 0, limit: 25)
            #expect(exact.rows.count == 25 && !exact.hasMore)
        }
    }

    @Test("deletions are delivered as tombstones, and deleting a tombstone again makes no new version")
    func tombstones() async throws {
        try await TestServer.with { server in
            let a = try await server.client(space: "home")
            let b = try await server.client(space: "home")
            try await a.push([todo("1"), todo("2")])
            let seen = try await b.pull()
            let deleted = try await a.push([todo("1", .delete)])
            #expect(deleted.results[0].applied && deleted.results[0].current.deleted)
            let page = try await b.pull(after: seen.cursor)
            #expect(page.rows.count == 1)
            #expect(page.rows[0].id == .text("1") && page.rows[0].deleted && page.rows[0].columns == nil)
            let again = try await b.push([todo("1", .delete)])
            #expect(again.results[0].current.version == page.rows[0].version)
            #expect(try await a.pull(after: page.cursor).rows.isEmpty)
        }
    }

    @Test("a duplicated push (same mutation id, same bytes) is applied once")
    func duplicatePush() async throws {
        try await TestServer.with { server in
            let a = try await server.client(space: "home")
            let body = try JSONEncoder().encode(PushRequest(clientID: a.clientID, mutations: [
                SyncMutation(id: 1, changes: [todo("1")]), SyncMutation(id: 2, changes: [todo("2")]),
            ]))
            let first = try await a.pushAnswer(body)
            #expect(first.status == 200)
            let before = try await server.snapshot()
            let second = try await a.pushAnswer(body)
            #expect(second.status == 200)
            let response = try second.decode(PushResponse.self)
            // The replay is answered with the original results (issue 29 item 7).
            let original = try first.decode(PushResponse.self)
            #expect(response.lastMutationID == 2 && response.results == original.results)
            #expect(response.acknowledged == [1, 2])
            #expect(try await server.snapshot() == before)
            // Mutation 2 with another content is refused (issue 29 item 3), 3 with it.
            let conflict = try await a.pushAnswer(try JSONEncoder().encode(PushRequest(clientID: a.clientID, mutations: [
                SyncMutation(id: 2, changes: [todo("2", .update, title: "changed")]), SyncMutation(id: 3, changes: [todo("3")]),
            ])))
            #expect(conflict.status == 409)
            #expect(try await server.snapshot() == before)
            // A request repeating mutation 2 as it was and adding 3 applies only 3.
            let third = try await a.push(PushRequest(clientID: a.clientID, mutations: [
                SyncMutation(id: 2, changes: [todo("2")]), SyncMutation(id: 3, changes: [todo("3")]),
            ]))
            #expect(third.lastMutationID == 3 && third.results.map(\.id) == [.text("2"), .text("3")])
            #expect(third.acknowledged == [2, 3])
            let rows = try await a.pull().rows
            #expect(rows.first { $0.id == .text("2") }?.columns?["title"] == .text("2"))
        }
    }
}
