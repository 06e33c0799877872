import Foundation
import SwiduxSyncWire
import Testing

@Suite("Long poll")
struct LongPollTests {
    @Test("a waiting pull is woken by another client's push and returns it")
    func wokenByPush() async throws {
        try await TestServer.with { server in
            let a = try await server.client(space: "home")
            let b = try await server.client(space: "home")
            let other = try await server.client(space: "elsewhere")
            let cursor = try await b.pull().cursor
            // Waits up to 60 s; the push below must end the wait long before (the test's
            // time limit catches a wait that only ends at its timeout).
            async let waited = b.pull(after: cursor, wait: 60)
            try await Task.sleep(for: .milliseconds(300))
            // A push to another space does not answer b's poll with anything.
            try await other.push([todo("not yours")])
            try await Task.sleep(for: .milliseconds(100))
            let pushed = try await a.push([todo("1")])
            let page = try await waited
            #expect(page.rows.map(\.id) == [.text("1")])
            #expect(page.cursor == pushed.results[0].current.version)
        }
    }

    @Test("a waiting pull returns an empty page at its timeout")
    func timeout() async throws {
        try await TestServer.with { server in
            let b = try await server.client(space: "home")
            let started = ContinuousClock.now
            let page = try await b.pull(after: 0, wait: 1)
            #expect(page.rows.isEmpty && page.cursor == 0 && !page.hasMore)
            #expect(ContinuousClock.now - started >= .milliseconds(900), "it waited for its timeout")
        }
    }

    @Test("many waiting pulls are all woken by one push")
    func fanOut() async throws {
        try await TestServer.with { server in
            let a = try await server.client(space: "home")
            let b = try await server.client(space: "home")
            try await withThrowingTaskGroup(of: [SyncRow].self) { group in
                for _ in 0..<8 { group.addTask { try await b.pull(after: 0, wait: 60).rows } }
                try await Task.sleep(for: .milliseconds(300))
                try await a.push([todo("1")])
                for try await rows in group { #expect(rows.map(\.id) == [.text("1")]) }
            }
        }
    }
}
