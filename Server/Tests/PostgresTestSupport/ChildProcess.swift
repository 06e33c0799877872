import Foundation
import Subprocess
import Synchronization
#if canImport(System)
import System
#else
import SystemPackage
#endif
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A child process for the tests and the benchmarks, on swift-subprocess: started with
/// `posix_spawn`, its end awaited without holding one of the few cooperative threads
/// (Foundation's `Process` reports its end through a run loop and can hang when many children
/// run at once). Standard input is /dev/null; standard output and error are kept in memory as
/// they arrive, so that a line can be awaited while the child runs. It is reaped once it ends,
/// whether or not anyone waits; until then signals reach it, and never after (its pid may be
/// another process's by then).
///
/// Exit statuses are the shell's: the exit code, or 128 + the signal number when a signal ended it.
///
/// ```swift
/// let child = try await ChildProcess(executable: "/bin/echo", arguments: ["hi"])
/// let status = await child.exitStatus()   // 0
/// ```
public final class ChildProcess: Sendable {
    /// The child's process id.
    public let pid: pid_t
    /// What the program was.
    public let executable: String
    private let record: Record
    private let signals: AsyncStream<Int32>.Continuation
    private let termination: Task<Int32, Never>

    /// Starts `executable arguments…` with `environment` (default: this process's), standard
    /// input from /dev/null; returns once it runs.
    ///
    /// ```swift
    /// let server = try await ChildProcess(executable: path, arguments: ["serve", "--port", "0"])
    /// let line = await server.line(containing: "listening on")
    /// ```
    public init(executable: String, arguments: [String], environment: [String: String]? = nil) async throws {
        let configuration = Configuration(
            executable: .path(FilePath(executable)),
            arguments: Arguments(arguments),
            environment: environment.map { values in
                .custom(Dictionary(uniqueKeysWithValues: values.map { (Environment.Key(stringLiteral: $0.key), $0.value) }))
            } ?? .inherit)
        let record = Record()
        let (signals, signalsContinuation) = AsyncStream<Int32>.makeStream()
        let (started, startedContinuation) = AsyncThrowingStream<pid_t, any Error>.makeStream()
        let termination = Task<Int32, Never> {
            let status: Int32
            do {
                let result = try await Subprocess.run(configuration, input: .none, output: .sequence, error: .sequence) { execution in
                    let pid = execution.processIdentifier.value
                    startedContinuation.yield(pid)
                    startedContinuation.finish()
                    await withTaskGroup(of: Void.self) { group in
                        // Signals go through the execution while the body lasts: the child is
                        // reaped only after it returns, so its pid is still its own.
                        group.addTask {
                            for await signal in signals { try? execution.send(signal: Signal(rawValue: signal)) }
                        }
                        // Both end when the child ends, even if a grandchild keeps a pipe open
                        // (swift-subprocess stops the reads then).
                        async let errorRead: Void = record.read(execution.standardError, output: false)
                        await record.read(execution.standardOutput, output: true)
                        await errorRead
                        await Self.untilEnded(pid)
                        group.cancelAll()
                    }
                }
                status = switch result.terminationStatus {
                case .exited(let code): code
                case .signaled(let signal): 128 + signal
                }
            } catch {
                startedContinuation.finish(throwing: error)
                record.note("\(executable): \(error)")
                status = -1
            }
            signalsContinuation.finish()
            record.finish(status)
            return status
        }
        var iterator = started.makeAsyncIterator()
        do {
            guard let pid = try await iterator.next() else { throw ProcessFailure("cannot start \(executable)") }
            self.pid = pid
        } catch {
            throw ProcessFailure("cannot start \(executable): \(error)")
        }
        self.executable = executable
        self.record = record
        self.signals = signalsContinuation
        self.termination = termination
    }

    // The child is still reaped when it ends; only signals can no longer reach it.
    deinit { signals.finish() }

    /// Sends `sig` to the child only (never to a process group or to ourselves); nothing once it has ended.
    public func signal(_ sig: Int32) {
        precondition(pid > 0 && pid != getpid(), "refusing to signal pid \(pid)")
        signals.yield(sig)
    }

    /// Waits for the child to end: its exit status, or 128 + the signal that ended it
    /// (-1 when swift-subprocess could not follow it: ``standardError`` says why).
    public func exitStatus() async -> Int32 {
        await termination.value
    }

    /// ``run(_:_:environment:)`` from a thread outside Swift concurrency (an exit handler; never
    /// on the cooperative pool, which runs the child's task): blocks until the child ends; its
    /// exit status, or `nil` when it could not start.
    ///
    /// ```swift
    /// atexit { _ = ChildProcess.runBlocking("/usr/bin/pg_ctl", ["stop", "-D", data]) }
    /// ```
    public static func runBlocking(_ executable: String, _ arguments: [String], environment: [String: String]? = nil) -> Int32? {
        final class Outcome: Sendable { let status = Mutex<Int32??>(nil) }
        let outcome = Outcome()
        Task {
            let status = try? await run(executable, arguments, environment: environment).status
            outcome.status.withLock { $0 = .some(status) }
        }
        while true {
            if let status = outcome.status.withLock({ $0 }) { return status }
            usleep(2000)
        }
    }

    /// What the child wrote to its standard output so far.
    public var standardOutput: String { record.text(output: true) }
    /// What the child wrote to its standard error so far.
    public var standardError: String { record.text(output: false) }

    /// Waits for a line of standard output that contains `text`: that line, or `nil` when
    /// the child's output ends first.
    public func line(containing text: String) async -> String? {
        await record.line(containing: text)
    }

    /// Runs `executable arguments…` to completion: its status and output.
    ///
    /// ```swift
    /// let (status, out, err) = try await ChildProcess.run("/usr/bin/id", ["-u"])
    /// ```
    public static func run(_ executable: String, _ arguments: [String], environment: [String: String]? = nil)
        async throws -> (status: Int32, stdout: String, stderr: String) {
        let child = try await ChildProcess(executable: executable, arguments: arguments, environment: environment)
        let status = await child.exitStatus()
        return (status, child.standardOutput, child.standardError)
    }

    /// Returns once `pid`, not yet reaped, has ended. Its output ends as it exits, so this
    /// is at once but for a child that closes its output and runs on.
    private static func untilEnded(_ pid: pid_t) async {
        var pause = 1
        while true {
            var info = siginfo_t()
            // WNOWAIT: only looks; swift-subprocess reaps it after the body.
            let looked = waitid(P_PID, id_t(pid), &info, WEXITED | WNOHANG | WNOWAIT)
            if looked != 0 && errno != EINTR { return }
            if looked == 0 && Self.pid(of: info) == pid { return }
            try? await Task.sleep(for: .milliseconds(pause))
            pause = min(pause * 2, 50)
        }
    }

    private static func pid(of info: siginfo_t) -> pid_t {
        #if canImport(Glibc)
        info._sifields._sigchld.si_pid
        #else
        info.si_pid
        #endif
    }
}

/// What a ``ChildProcess`` wrote, its status once ended, and who waits for a line.
private final class Record: Sendable {
    private struct State {
        var output: [UInt8] = []
        var error: [UInt8] = []
        var status: Int32?
        var lineWaiters: [(String, CheckedContinuation<String?, Never>)] = []
    }
    private let state = Mutex(State())

    var status: Int32? { state.withLock { $0.status } }

    func text(output: Bool) -> String {
        state.withLock { String(decoding: output ? $0.output : $0.error, as: UTF8.self) }
    }

    /// Appends `sequence` to standard output or error as it arrives, until it ends.
    func read(_ sequence: SubprocessOutputSequence, output: Bool) async {
        do {
            for try await buffer in sequence {
                let bytes = buffer.withUnsafeBytes { Array($0) }
                state.withLock { state in
                    if output {
                        state.output += bytes
                        state.lineWaiters.removeAll { text, continuation in
                            guard let line = Self.line(in: state.output, containing: text) else { return false }
                            continuation.resume(returning: line)
                            return true
                        }
                    } else {
                        state.error += bytes
                    }
                }
            }
        } catch {
            note("reading its standard \(output ? "output" : "error") failed: \(error)")
        }
    }

    /// Adds a line of ours to standard error (a failure of swift-subprocess, not of the child).
    func note(_ message: String) {
        state.withLock { $0.error += Array("\n\(message)\n".utf8) }
    }

    func line(containing text: String) async -> String? {
        await withCheckedContinuation { continuation in
            state.withLock { state in
                if let line = Self.line(in: state.output, containing: text) { continuation.resume(returning: line) }
                else if state.status != nil { continuation.resume(returning: nil) }
                else { state.lineWaiters.append((text, continuation)) }
            }
        }
    }

    func finish(_ status: Int32) {
        state.withLock { state in
            state.status = status
            for (_, continuation) in state.lineWaiters { continuation.resume(returning: nil) }
            state.lineWaiters = []
        }
    }

    private static func line(in data: [UInt8], containing text: String) -> String? {
        String(decoding: data, as: UTF8.self).split(separator: "\n").first { $0.contains(text) }.map(String.init)
    }
}
