import Foundation
import SwiduxTestSupport
import Testing

/// While the UI is not in sync, its status line keeps a mark saying so (not a message that
/// fades after 4 s); a token the server refused is not sent again until asked (`s`).
extension ProcessTests { @Suite struct SyncMarkUITests {
    @Test func deadServerLeavesALastingOfflineMarkWithTheChangesWaiting() async throws {
        let box = try Sandbox()
        _ = try await box.add("made offline")
        let server = try HungServer()
        server.stop()   // nothing listens on the port any more: refused
        var environment = box.environment
        environment["TODOS_SYNC_URL"] = server.url.absoluteString
        environment["TODOS_SYNC_TOKEN"] = "t"
        let session = try await TerminalSession.start(box: box, environment: environment)
        await session.waitFor("the offline mark") { $0.lines[23].contains("offline · ") && $0.lines[23].contains("waiting") }
        let first = session.screen.lines[23]
        // Past the 4 s of a status message, and past several retries, the mark stays.
        try await Task.sleep(for: .seconds(7))
        #expect(session.screen.lines[23].contains("offline · "), "\(session.screen.lines[23])")
        await session.type("a")
        await session.type("one more\r")
        await session.waitFor("the count following the edit") {
            $0.lines[23].contains("offline · ") && $0.lines[23] != first && $0.text.contains("one more")
        }
        await session.type("q")
        #expect(await session.waitForExit() == 0)
    }

    @Test func refusedTokenStopsSyncVisiblyUntilRetried() async throws {
        let box = try Sandbox()
        let server = try RefusingServer()
        defer { server.stop() }
        var environment = box.environment
        environment["TODOS_SYNC_URL"] = server.url.absoluteString
        environment["TODOS_SYNC_TOKEN"] = "wrong"
        let session = try await TerminalSession.start(box: box, environment: environment)
        await session.waitFor("the refused-token mark") { $0.lines[23].contains("token refused — sync stopped") }
        try await Task.sleep(for: .seconds(1))
        let refused = server.requests
        try await Task.sleep(for: .seconds(5))
        #expect(server.requests == refused, "the refused token was sent again: \(server.requests - refused) requests")
        #expect(session.screen.lines[23].contains("token refused — sync stopped"))
        await session.type("s")   // retry now
        #expect(await waitUntil(seconds: 10) { server.requests > refused })
        await session.waitFor("the mark after the retry") { $0.lines[23].contains("token refused — sync stopped") }
        await session.type("q")
        #expect(await session.waitForExit() == 0)
    }
} }
