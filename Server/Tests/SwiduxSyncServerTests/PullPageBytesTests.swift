import Foundation
import PostgresTestSupport
import SwiduxSyncWire
import Testing

@Suite("Pull page bytes")
struct PullPageBytesTests {
    /// Issue 29 item 11: 20 rows of 7 MiB made one 140 MiB page. With the default bound
    /// (4 MiB) ten rows of 1 MiB come in pages of at most four rows (and at most about
    /// 4 MiB), every row once, in order.
    @Test("pull pages are bounded in bytes (default 4 MiB); all rows still arrive", .timeLimit(.minutes(2)))
    func pagesBoundedByDefault() async throws {
        try await TestServer.with { server in
            let writer = try await server.client(space: "home")
            let reader = try await server.client(space: "home")
            let big = String(repeating: "x", count: 1 << 20)
            try await writer.push((0..<10).map { todo("big\($0)", title: big) })
            let first = try await reader.pullAnswer(after: 0)
            let page = try first.decode(PullResponse.self)
            #expect(page.hasMore)
            #expect((1...4).contains(page.rows.count), "the first page holds \(page.rows.count) rows of 1 MiB")
            #expect(first.body.count <= (4 << 20) + (64 << 10), "the first page has \(first.body.count) bytes")
            #expect(try await reader.pullAll().map(\.id) == (0..<10).map { .text("big\($0)") })
        }
    }

    /// The bound is an option (`--pull-page-bytes`), and a row larger than it comes alone.
    @Test("--pull-page-bytes bounds pages; a larger row comes alone", .timeLimit(.minutes(2)))
    func optionAndOversizedRow() async throws {
        let database = try await PostgresCluster.shared().createDatabase()
        let server = try await ServerProcess.start(postgres: database, arguments: ["--pull-page-bytes", "100000"])
        let token = try await ServerProcess.createToken(postgres: database, space: "home")
        let client = SyncHTTP(base: server.url, token: token)
        try await client.declare(["todo"])
        try await client.push((0..<6).map { todo("small\($0)", title: String(repeating: "s", count: 30_000)) }
                              + [todo("huge", title: String(repeating: "h", count: 300_000))])
        var pages: [[String]] = []
        var cursor: Int64 = 0
        while true {
            let page = try await client.pull(after: cursor)
            pages.append(page.rows.map { if case .text(let id) = $0.id { id } else { "?" } })
            cursor = page.cursor
            if !page.hasMore { break }
        }
        await server.stop()
        #expect(pages == [["small0", "small1", "small2"], ["small3", "small4", "small5"], ["huge"]], "\(pages)")
    }
}
