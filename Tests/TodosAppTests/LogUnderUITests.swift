import Foundation
import Testing
@testable import TodosApp

/// Issue 27 item 8 (and issue 29 item 17): while the full-screen UI runs, the library's log
/// goes to a file and nothing is printed under the UI.
@Suite(.timeLimit(.minutes(1)))
struct LogUnderUITests {
    @Test func syncFailuresGoToTheLogFileNotToTheScreen() async throws {
        let sandbox = try Sandbox()
        _ = try await sandbox.add("milk")
        let log = sandbox.directory.appendingPathComponent("ui.log").path
        var environment = sandbox.environment
        environment["TODOS_LOG"] = log
        environment["TERM"] = "xterm"
        // A sync server that is not there: the sync client logs an error on every retry.
        let session = try await TerminalSession.start(
            arguments: ["--sync", "http://127.0.0.1:9", "--sync-token", "t"], environment: environment)
        let logged = await waitUntil { (sandbox.bytes(log).map { String(decoding: $0, as: UTF8.self) } ?? "").contains("Swidux sync") }
        let sawList = await waitUntil { session.rawOutput.contains("milk") }
        session.send("q")
        let status = await session.waitForExit()
        #expect(status == 0)
        #expect(sawList, "the UI drew its list")
        #expect(logged, "the sync failure was logged to \(log)")
        #expect(!session.rawOutput.contains("Swidux sync"), "a log line reached the terminal under the UI")
        #expect(!session.rawOutput.contains("retrying in"), "a log line reached the terminal under the UI")
    }

    @Test func theLogFileComesFromTheOptionTheEnvironmentOrTheStateFolder() {
        #expect(LogFile.resolve(option: "/x/a.log", environment: ["TODOS_LOG": "/y/b.log"]) == "/x/a.log")
        #expect(LogFile.resolve(option: nil, environment: ["TODOS_LOG": "/y/b.log"]) == "/y/b.log")
        #expect(LogFile.resolve(option: nil, environment: ["HOME": "/h", "XDG_STATE_HOME": "/s"]) == "/s/todos/todos.log")
        #expect(LogFile.resolve(option: nil, environment: ["HOME": "/h"]) == "/h/.local/state/todos/todos.log")
        #expect(LogFile.resolve(option: "~/l.log", environment: ["HOME": "/h"]) == "/h/l.log")
    }

    @Test func theHelpNamesTheLogFile() async throws {
        let result = try await Sandbox().run("--help")
        #expect(result.stdout.contains("--log"))
        #expect(result.stdout.contains("todos.log"))
    }
}

/// Issue 30 item 8: the full-screen UI renders from the store through `store.observe`: a
/// change committed by another process is drawn without a key press.
@Suite(.timeLimit(.minutes(1)))
struct RenderFromStoreTests {
    @Test func anotherProcesssAddIsDrawnWithoutAKeyPress() async throws {
        let sandbox = try Sandbox()
        _ = try await sandbox.add("milk")
        var environment = sandbox.environment
        environment["TODOS_LOG"] = sandbox.directory.appendingPathComponent("ui.log").path
        environment["TERM"] = "xterm"
        let session = try await TerminalSession.start(arguments: [], environment: environment)
        #expect(await waitUntil { session.rawOutput.contains("milk") })
        _ = try await sandbox.add("bread from a script")
        let drawn = await waitUntil(seconds: 10) { session.rawOutput.contains("bread from a script") }
        session.send("q")
        #expect(await session.waitForExit() == 0)
        #expect(drawn, "the other process's item was not drawn")
    }
}
