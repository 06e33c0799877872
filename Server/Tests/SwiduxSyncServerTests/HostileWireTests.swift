import Foundation
import PostgresTestSupport
import SwiduxSyncWire
import Testing

/// Issue 43 item 6: the server refuses what it cannot store, cleanly — long ids and column
/// names (413 naming the limit), malformed chunked framing (400), members named twice (400
/// naming the member) — and keeps names and ids byte for byte.
@Suite("Hostile wire inputs")
struct HostileWireTests {
    private func body(_ mutations: String, clientID: String = "c", extra: String = "") -> Data {
        Data(#"{"clientID":"\#(clientID)","mutations":\#(mutations)\#(extra)}"#.utf8)
    }

    @Test("an id or a column name over SyncProtocol.maxKeyBytes gets 413 naming the limit, and changes nothing; one of exactly the limit is stored")
    func longIDsAndNames() async throws {
        try await TestServer.with { server in
            let a = try await server.client(space: "home")
            try await a.push([todo("first")])
            let before = try await server.snapshot()
            let long = String(repeating: "é", count: SyncProtocol.maxKeyBytes / 2) + "x"   // 1,025 bytes
            let refused: [SyncChange] = [
                todo(long),
                SyncChange(table: "todo", id: .blob(Data(count: SyncProtocol.maxKeyBytes + 1)), kind: .insert, columns: ["title": .text("b")]),
                SyncChange(table: "todo", id: .text("n"), kind: .insert, columns: [long: .integer(1)]),
                SyncChange(table: "todo", id: .text("x"), kind: .delete),   // with the long id below
            ]
            for (index, change) in refused.enumerated() {
                var change = change
                if index == 3 { change.id = .text(String(repeating: "d", count: 3000)) }
                // Alone, after a row that fits, and in a large mutation (written with COPY).
                for changes in [[change], [todo("ok")] + [change], (0..<100).map { todo("row\($0)") } + [change]] {
                    let request = PushRequest(clientID: a.clientID, mutations: [SyncMutation(id: 2, changes: changes)])
                    var data = try JSONEncoder().encode(request)
                    for fallback in [false, true] {
                        if fallback {
                            // An unknown member: read by JSONDecoder, after the layout check.
                            data = Data(String(decoding: data.dropLast(), as: UTF8.self).appending(#","unknown":1}"#).utf8)
                        }
                        let answer = try await a.pushAnswer(data)
                        #expect(answer.status == 413, "\(index) \(fallback): \(answer.status) \(answer.error ?? "")")
                        #expect(answer.error?.contains("\(SyncProtocol.maxKeyBytes)") == true && answer.error?.contains("maxKeyBytes") == true,
                                "\(answer.error ?? "")")
                    }
                }
            }
            #expect(try await server.snapshot() == before)
            // The limit itself fits: an id and a name of exactly maxKeyBytes bytes.
            let fits = String(repeating: "é", count: SyncProtocol.maxKeyBytes / 2)
            try await a.push([SyncChange(table: "todo", id: .text(fits), kind: .insert, columns: [fits: .integer(7)])])
            let rows = try await a.pullAll()
            #expect(rows.contains { $0.id == .text(fits) && $0.columns?[fits] == .integer(7) })
        }
    }

    @Test("a malformed chunked body gets 400 (not 500), and the server keeps serving")
    func malformedChunked() async throws {
        try await TestServer.with { server in
            let a = try await server.client(space: "home")
            let before = try await server.snapshot()
            let json = #"{"clientID":"c","mutations":[]}"#
            let size = String(json.utf8.count, radix: 16)
            let framings = [
                "-1\r\n\(json)\r\n0\r\n\r\n",                          // a negative size
                "0x\(size)\r\n\(json)\r\n0\r\n\r\n",                    // a C hexadecimal prefix
                "3\r\n\(json)\r\n0\r\n\r\n",                            // a size shorter than the chunk
                "\(size)\r\n\(json)0\r\n\r\n",                          // no CRLF after the chunk
                "\(size)\n\(json)\n0\n\n",                              // LF-only lines
                "zz\r\n\(json)\r\n0\r\n\r\n",                           // not a size
                "\(size)\r\n\(json)\r\n0\r\nnot a trailer\r\n\r\n",     // a malformed trailer
            ]
            for framing in framings {
                let socket = try RawSocket(port: server.port)
                socket.send("POST /\(SyncProtocol.pushPath) HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer \(a.token!)\r\n"
                            + "Content-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n" + framing)
                let answer = socket.readAnswer()
                #expect(answer.hasPrefix("HTTP/1.1 400"), "\(framing.debugDescription): \(answer.prefix(200))")
            }
            #expect(try await server.snapshot() == before)
            try await a.push([todo("after")])
            #expect(try await a.pullAll().map(\.id) == [.text("after")])
        }
    }

    @Test("a member named twice anywhere in a push body gets 400 naming it, and changes nothing")
    func duplicateMembers() async throws {
        try await TestServer.with { server in
            let a = try await server.client(space: "home")
            let before = try await server.snapshot()
            let change = #"{"table":"todo","id":"x","kind":"insert","columns":{"title":"t"}}"#
            let cases: [(body: Data, member: String, place: String)] = [
                (Data(#"{"clientID":"c","clientID":"d","mutations":[]}"#.utf8), "clientID", "the request"),
                (body(#"[]"#, extra: #","mutations":[{"id":1,"changes":[\#(change)]}]"#), "mutations", "the request"),
                (body(#"[{"id":1,"id":2,"changes":[\#(change)]}]"#), "id", "mutations[0]"),
                (body(#"[{"id":1,"changes":[],"changes":[\#(change)]}]"#), "changes", "mutations[0]"),
                (body(#"[{"id":1,"changes":[{"table":"todo","id":"x","kind":"insert","kind":"delete","columns":{"title":"t"}}]}]"#),
                 "kind", "mutations[0].changes[0]"),
                (body(#"[{"id":1,"changes":[{"table":"todo","id":"x","kind":"insert","columns":{"title":"t","done":0,"title":"u"}}]}]"#),
                 "title", "mutations[0].changes[0].columns"),
                // Spelled differently, the same bytes once read.
                (body(#"[{"id":1,"changes":[{"table":"todo","id":"x","kind":"insert","columns":{"caf\u00e9":1,"café":2}}]}]"#),
                 "café", "mutations[0].changes[0].columns"),
                (body(#"[{"id":1,"changes":[{"table":"todo","id":{"real":1,"real":2},"kind":"insert","columns":{}}]}]"#),
                 "real", "mutations[0].changes[0].id"),
                (body(#"[]"#, extra: #","other":{"a":1,"a":2}"#), "a", "other"),
                (body(#"[]"#, clientID: "c", extra: #","scope":null,"scope":"s""#), "scope", "the request"),
            ]
            for (data, member, place) in cases {
                let answer = try await a.pushAnswer(data)
                let text = String(decoding: data, as: UTF8.self)
                #expect(answer.status == 400, "\(text): \(answer.status)")
                #expect(answer.error?.contains("\"\(member)\" appears twice in \(place)") == true, "\(text): \(answer.error ?? "")")
            }
            #expect(try await server.snapshot() == before)
        }
    }

    /// The members of a JSON object in a pull page, as written (a dictionary would merge
    /// canonically equivalent names).
    private func members(ofRowsIn data: Data) throws -> [[String: [String]]] {
        try data.withUnsafeBytes { bytes in
            var scanner = WireReader(bytes)
            var rows: [[String: [String]]] = []
            try scanner.object { scanner, key in
                guard key == "rows" else { return try scanner.skipValue() }
                try scanner.array { scanner in
                    var row: [String: [String]] = [:]
                    try scanner.object { scanner, key in
                        switch key {
                        case "id": row["id", default: []].append(try scanner.string())
                        case "columns":
                            try scanner.object { scanner, name in
                                row["columns", default: []].append(name)
                                try scanner.skipValue()
                            }
                        default: try scanner.skipValue()
                        }
                    }
                    rows.append(row)
                }
            }
            return rows
        }
    }

    @Test("canonically equivalent column names and ids are two columns and two rows, both stored and pulled back")
    func canonicallyEquivalentNames() async throws {
        try await TestServer.with { server in
            let composed = "caf\u{E9}", decomposed = "cafe\u{301}"
            #expect(composed == decomposed)   // for Swift's String; not for the databases
            let columns = #"{"caf\u00e9":1,"cafe\u0301":2,"b":3}"#
            for (index, fallback) in [false, true].enumerated() {
                let a = try await server.client(space: "space\(index)")
                let data = body(#"[{"id":1,"changes":[{"table":"todo","id":"caf\u00e9","kind":"insert","columns":\#(columns)},{"table":"todo","id":"cafe\u0301","kind":"insert","columns":\#(columns)}]}]"#,
                                clientID: a.clientID, extra: fallback ? #","unknown":true"# : "")
                let answer = try await a.pushAnswer(data)
                #expect(answer.status == 200, "\(answer.error ?? "")")
                let pulled = try await a.pullAnswer()
                #expect(pulled.status == 200)
                let rows = try members(ofRowsIn: pulled.body)
                #expect(rows.count == 2)
                #expect(Set(rows.compactMap { $0["id"]?.first?.unicodeScalars.count }) == [4, 5])   // both spellings
                for row in rows {
                    let names = try #require(row["columns"])
                    #expect(names.count == 3, "\(names)")
                    #expect(Set(names.map { Array($0.utf8) }).count == 3, "\(names)")
                }
            }
        }
    }
}
