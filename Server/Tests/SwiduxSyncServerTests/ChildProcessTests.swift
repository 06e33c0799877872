import Foundation
import SwiduxTestSupport
import Testing

/// The main package's child processes with their output captured, as the cluster, the server
/// process and the benchmarks of this package start them.
@Suite("Child processes")
struct ChildProcessTests {
    @Test("exit status, standard output and error apart, and only the environment given")
    func statusAndOutput() async throws {
        let result = try await ChildProcess.capture(["/bin/sh", "-c", "echo out $SWIDUX_CHILD $HOME; echo err >&2; exit 3"],
                                                    environment: ["SWIDUX_CHILD": "given"])
        #expect(result.status == 3)
        #expect(result.stdout == "out given\n")
        #expect(result.stderr == "err\n")
    }

    @Test("a line is awaited while the child runs; a signal ends it with 128 + the signal", .timeLimit(.minutes(1)))
    func lineWhileRunningAndSignal() async throws {
        let child = try await ChildProcess.start(["/bin/sh", "-c", "echo starting; echo ready on 42; exec sleep 300"])
        let line = await child.line(containing: "ready")
        #expect(line == "ready on 42")
        child.send(SIGTERM)
        #expect(try await child.wait() == 128 + SIGTERM)
        #expect(try await child.wait() == 128 + SIGTERM, "a second wait answers the same")
        child.send(SIGKILL)   // after its end: reaches nobody
        #expect(await child.line(containing: "never") == nil)
    }

    @Test("a line never printed: nil once the child ends")
    func lineNeverPrinted() async throws {
        let child = try await ChildProcess.start(["/bin/sh", "-c", "echo something else"])
        #expect(await child.line(containing: "listening") == nil)
        #expect(child.standardOutput == "something else\n")
    }

    @Test("a grandchild that keeps the pipes open does not hold the child's end", .timeLimit(.minutes(1)))
    func grandchildKeepsPipes() async throws {
        let child = try await ChildProcess.start(["/bin/sh", "-c", "sleep 300 & echo $!"])
        #expect(try await child.wait() == 0)
        let grandchild = try #require(pid_t(child.standardOutput.trimmingCharacters(in: .whitespacesAndNewlines)))
        #expect(kill(grandchild, SIGKILL) == 0, "the grandchild was still running")
    }

    @Test("a program that cannot start throws")
    func missingProgram() async throws {
        await #expect(throws: ChildProcess.SpawnFailure.self) {
            try await ChildProcess.start(["/nonexistent/program"])
        }
    }

    @Test("runBlocking from a thread outside Swift concurrency (the exit handler's case)", .timeLimit(.minutes(1)))
    func runBlocking() async throws {
        let status = await withCheckedContinuation { continuation in
            Thread { continuation.resume(returning: ChildProcess.runBlocking(["/bin/sh", "-c", "exit 7"])) }.start()
        }
        #expect(status == 7)
        let missing = await withCheckedContinuation { continuation in
            Thread { continuation.resume(returning: ChildProcess.runBlocking(["/nonexistent/program"])) }.start()
        }
        #expect(missing == nil)
    }
}
