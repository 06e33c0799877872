import Foundation
import Subprocess
import Swidux
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

/// A child process for tests, on swift-subprocess: started with `posix_spawn`, its end awaited
/// without holding one of the few cooperative threads (Foundation's `Process` reports its end
/// through the run loop of the thread that started it, which a Swift-concurrency thread never runs).
///
/// Its output goes to files, to a terminal, or into memory (``start(_:environment:in:)``,
/// ``capture(_:environment:user:)``), where a line can be awaited while the child runs. This
/// package's tests and the sync server package's tests and benchmarks all start their children here.
///
/// Exit statuses are the shell's: the exit code, or 128 + the signal number when a signal ended it.
///
/// ```swift
/// let child = try await ChildProcess.start(["/usr/bin/sleep", "60"], output: "/tmp/sleep.log")
/// child.send(SIGTERM)
/// #expect(try await child.wait() == 128 + SIGTERM)
/// let status = try await ChildProcess.run(["swift", "build"], in: project, output: "/tmp/build.log")
/// ```
public final class ChildProcess: Sendable {
    /// The child's process id. A child whose output goes to files or a terminal stays unreaped,
    /// so its pid stays its own, until ``wait()`` returns; one whose output is captured is
    /// reaped as soon as it ends (signals sent after that reach nobody).
    public let processIdentifier: pid_t
    private let signals: AsyncStream<Int32>.Continuation
    private let termination: Task<Int32, any Error>
    /// What the child wrote, when it was started with its output captured.
    private let captured: CapturedOutput?

    private init(processIdentifier: pid_t, signals: AsyncStream<Int32>.Continuation, termination: Task<Int32, any Error>,
                 captured: CapturedOutput? = nil) {
        self.processIdentifier = processIdentifier
        self.signals = signals
        self.termination = termination
        self.captured = captured
    }

    // A child dropped without `wait()` is still reaped when it ends.
    deinit { signals.finish() }

    /// Starts `arguments` (an executable, by path or looked up on the `PATH`, then its arguments),
    /// standard input from /dev/null, standard output appended to the file `output` (created if
    /// needed) and standard error to the file `error` (`nil`: the same file as standard output).
    ///
    /// - Parameters:
    ///   - environment: the child's whole environment; `nil` inherits this process's.
    ///   - directory: the child's working directory; `nil` keeps this process's.
    ///
    /// ```swift
    /// let writer = try await ChildProcess.start([path, "commits", database], output: log)
    /// writer.send(SIGKILL)
    /// _ = try await writer.wait()
    /// ```
    public static func start(
        _ arguments: [String], environment: [String: String]? = nil, in directory: URL? = nil,
        output: String, error: String? = nil
    ) async throws -> ChildProcess {
        let outputFile = try FileDescriptor.open(
            output, .writeOnly, options: [.create, .append], permissions: [.ownerReadWrite, .groupRead, .otherRead])
        var errorFile: FileDescriptor?
        do {
            if let error, error != output {
                errorFile = try FileDescriptor.open(
                    error, .writeOnly, options: [.create, .append], permissions: [.ownerReadWrite, .groupRead, .otherRead])
            }
        } catch {
            try? outputFile.close()
            throw error
        }
        let configuration = try configuration(arguments, environment: environment, directory: directory)
        let output = FileDescriptorOutput.fileDescriptor(outputFile, closeAfterSpawningProcess: true)
        if let errorFile {
            return try await launch(configuration, arguments: arguments, input: .none, output: output,
                                    error: .fileDescriptor(errorFile, closeAfterSpawningProcess: true))
        }
        return try await launch(configuration, arguments: arguments, input: .none, output: output, error: .combinedWithOutput)
    }

    /// Starts `arguments` on a terminal, as a person's shell starts a full-screen program:
    /// standard input, output and error are `terminal` (the follower side of a
    /// pseudo-terminal, which the caller still owns and closes), in a session of its own
    /// whose controlling terminal it is (so that it gets the terminal's signals, and can
    /// open `/dev/tty`).
    ///
    /// ```swift
    /// let child = try await ChildProcess.start([todos], environment: environment, terminal: follower)
    /// try follower.close()   // the child holds its own copies
    /// ```
    public static func start(
        _ arguments: [String], environment: [String: String]? = nil, in directory: URL? = nil, terminal: FileDescriptor
    ) async throws -> ChildProcess {
        #if os(Linux)
        // swift-subprocess can make a new session but not give it a controlling terminal (that
        // takes an ioctl in the child between the two). util-linux's setsid does exactly that on
        // its standard input, then executes the program in its own place: the pid stays the
        // program's, since the child is no process-group leader that setsid would fork from.
        let launched = ["/usr/bin/setsid", "--ctty"] + arguments
        let configuration = try configuration(launched, environment: environment, directory: directory)
        #else
        var configuration = try configuration(arguments, environment: environment, directory: directory)
        configuration.platformOptions.createSession = true
        #endif
        return try await launch(
            configuration, arguments: arguments,
            input: .fileDescriptor(terminal, closeAfterSpawningProcess: false),
            output: .fileDescriptor(terminal, closeAfterSpawningProcess: false),
            error: .fileDescriptor(terminal, closeAfterSpawningProcess: false))
    }

    /// Starts `arguments` with standard input from /dev/null and its standard output and error
    /// kept in memory as they arrive (``standardOutput``, ``standardError``,
    /// ``line(containing:)``). The child is reaped as soon as it ends, waited for or not, even
    /// when a grandchild keeps its pipes open.
    ///
    /// ```swift
    /// let server = try await ChildProcess.start([path, "serve", "--port", "0"])
    /// let line = await server.line(containing: "listening on")
    /// server.send(SIGTERM)
    /// let status = try await server.wait()
    /// ```
    public static func start(
        _ arguments: [String], environment: [String: String]? = nil, in directory: URL? = nil
    ) async throws -> ChildProcess {
        try await launchCaptured(configuration(arguments, environment: environment, directory: directory), arguments: arguments)
    }

    private static func launchCaptured(_ configuration: Configuration, arguments: [String]) async throws -> ChildProcess {
        let captured = CapturedOutput()
        let (signals, signalsContinuation) = AsyncStream<Int32>.makeStream()
        let (started, startedContinuation) = AsyncThrowingStream<pid_t, any Error>.makeStream()
        let termination = Task<Int32, any Error> {
            var cpuSeconds: Double = 0
            defer {
                signalsContinuation.finish()
                captured.finish(cpuSeconds: cpuSeconds)
            }
            do {
                let result = try await Subprocess.run(configuration, input: .none, output: .sequence, error: .sequence) { execution in
                    let pid = execution.processIdentifier.value
                    startedContinuation.yield(pid)
                    startedContinuation.finish()
                    return await withTaskGroup(of: Void.self) { group in
                        // Signals go through the execution while the body lasts: the child is
                        // reaped only after it returns, so its pid is still its own.
                        group.addTask {
                            for await signal in signals { try? execution.send(signal: Signal(rawValue: signal)) }
                        }
                        // Both reads end when the child ends, even if a grandchild keeps a pipe
                        // open (swift-subprocess stops reading then).
                        async let errorRead: Void = captured.read(execution.standardError, output: false)
                        await captured.read(execution.standardOutput, output: true)
                        await errorRead
                        await untilEnded(pid)
                        // Ended and not yet reaped: its accounting is still in /proc.
                        let cpu = await finalCPUSeconds(of: pid)
                        group.cancelAll()
                        return cpu
                    }
                }
                cpuSeconds = result.closureResult
                return shellStatus(result.terminationStatus)
            } catch {
                startedContinuation.finish(throwing: error)
                captured.note("\(arguments.first ?? ""): \(error)")
                throw error
            }
        }
        var iterator = started.makeAsyncIterator()
        do {
            guard let pid = try await iterator.next() else { throw SpawnFailure(arguments: arguments) }
            return ChildProcess(processIdentifier: pid, signals: signalsContinuation, termination: termination, captured: captured)
        } catch let failure as SpawnFailure {
            throw failure
        } catch {
            throw SpawnFailure(arguments: arguments, cause: "\(error)")
        }
    }

    /// Starts the configured child with its standard streams, and keeps it unreaped until ``wait()``.
    private static func launch<Input: InputProtocol, Output: OutputProtocol, Failure: ErrorOutputProtocol>(
        _ configuration: Configuration, arguments: [String], input: Input, output: Output, error: Failure
    ) async throws -> ChildProcess {
        let (signals, signalsContinuation) = AsyncStream<Int32>.makeStream()
        let (started, startedContinuation) = AsyncThrowingStream<pid_t, any Error>.makeStream()
        let termination = Task<Int32, any Error> {
            do {
                // The body lasts until `wait()`: until then the child, even ended, is not reaped,
                // so its pid cannot be reused by another process while signals may still be sent.
                let status = try await Subprocess.run(configuration, input: input, output: output, error: error) { execution in
                    startedContinuation.yield(execution.processIdentifier.value)
                    startedContinuation.finish()
                    for await signal in signals { try? execution.send(signal: Signal(rawValue: signal)) }
                }.terminationStatus
                return shellStatus(status)
            } catch {
                startedContinuation.finish(throwing: error)
                throw error
            }
        }
        var iterator = started.makeAsyncIterator()
        guard let pid = try await iterator.next() else {
            throw SpawnFailure(arguments: arguments)
        }
        return ChildProcess(processIdentifier: pid, signals: signalsContinuation, termination: termination)
    }

    /// Runs `arguments` to completion like ``start(_:environment:in:output:error:)``, the files
    /// `output` and `error` emptied first; returns the exit status.
    ///
    /// ```swift
    /// let status = try await ChildProcess.run(["/usr/bin/env", "python3", "-c", script], output: log)
    /// ```
    public static func run(
        _ arguments: [String], environment: [String: String]? = nil, in directory: URL? = nil,
        output: String, error: String? = nil
    ) async throws -> Int32 {
        for path in Set([output, error ?? output]) {
            _ = FileManager.default.createFile(atPath: path, contents: nil)
        }
        return try await start(arguments, environment: environment, in: directory, output: output, error: error).wait()
    }

    /// Sends `signal` (`SIGKILL`, `SIGTERM`, `SIGINT`…) to the child, never to its process group;
    /// nothing once ``wait()`` has been called.
    public func send(_ signal: Int32) {
        signals.yield(signal)
    }

    /// Whether the child has ended (it stays unreaped, a zombie, until ``wait()``; never reused
    /// by another process until then).
    ///
    /// ```swift
    /// while !writer.hasEnded, progress() == 0 { try await Task.sleep(for: .milliseconds(5)) }
    /// ```
    public var hasEnded: Bool {
        #if os(Linux)
        guard let stat = try? String(contentsOfFile: "/proc/\(processIdentifier)/stat", encoding: .utf8),
              let end = stat.lastIndex(of: ")") else { return true }
        // After the command name in parentheses comes the state; Z is a zombie, X dead.
        let state = stat[stat.index(after: end)...].drop { $0 == " " }.first
        return state == "Z" || state == "X"
        #else
        return kill(processIdentifier, 0) != 0
        #endif
    }

    /// Waits for the child to end and reaps it; the exit status (128 + the signal number when a
    /// signal ended it). Signals sent before are delivered first.
    @discardableResult
    public func wait() async throws -> Int32 {
        signals.finish()
        return try await termination.value
    }

    /// What ``capture(_:environment:user:)`` returns.
    public struct Captured: Sendable {
        /// The exit status, or 128 + the signal number when a signal ended the child.
        public var status: Int32
        public var stdout: String
        public var stderr: String
        /// The child's CPU time, user and system (Linux only: 0 elsewhere).
        public var cpuSeconds: Double
        /// The child's wall-clock time.
        public var wallSeconds: Double
    }

    /// Runs `arguments` to completion with `environment` (`nil`: this process's), standard input
    /// from /dev/null, standard output and error captured; as the user and group `user` (ids, no
    /// supplementary groups; needs root) when given.
    ///
    /// ```swift
    /// let result = try await ChildProcess.capture([todos, "list"], environment: ["TODOS_DB": path])
    /// #expect(result.status == 0, "\(result.stderr)")
    /// ```
    public static func capture(
        _ arguments: [String], environment: [String: String]? = nil, user: (uid: UInt32, gid: UInt32)? = nil
    ) async throws -> Captured {
        var configuration = try configuration(arguments, environment: environment, directory: nil)
        if let user {
            configuration.platformOptions.userID = user.uid
            configuration.platformOptions.groupID = user.gid
            configuration.platformOptions.supplementaryGroups = []
        }
        let started = ContinuousClock.now
        let child = try await launchCaptured(configuration, arguments: arguments)
        let status = try await child.wait()
        let wall = started.duration(to: .now)
        return Captured(
            status: status, stdout: child.standardOutput, stderr: child.standardError,
            cpuSeconds: child.captured?.cpuSeconds ?? 0,
            wallSeconds: Double(wall.components.seconds) + Double(wall.components.attoseconds) / 1e18)
    }

    /// ``capture(_:environment:user:)``'s status from a thread outside Swift concurrency (an
    /// exit handler; never on the cooperative pool, which runs the child's task): blocks until
    /// the child ends; `nil` when it could not start.
    ///
    /// ```swift
    /// atexit { _ = ChildProcess.runBlocking(["/usr/bin/pg_ctl", "stop", "-D", data]) }
    /// ```
    public static func runBlocking(_ arguments: [String], environment: [String: String]? = nil) -> Int32? {
        let outcome = LockedValue<Int32??>(nil)
        Task {
            let status = try? await capture(arguments, environment: environment).status
            outcome.withLock { $0 = .some(status) }
        }
        while true {
            if let status = outcome.withLock({ $0 }) { return status }
            usleep(2000)
        }
    }

    /// What the child wrote to its standard output so far, when started with its output
    /// captured (``start(_:environment:in:)``); empty otherwise.
    public var standardOutput: String { captured?.text(output: true) ?? "" }

    /// What the child wrote to its standard error so far, when started with its output
    /// captured; empty otherwise.
    public var standardError: String { captured?.text(output: false) ?? "" }

    /// Waits for a line of standard output that contains `text`: that line, or `nil` when the
    /// child ended first (or its output is not captured).
    ///
    /// ```swift
    /// let line = await server.line(containing: "listening on")
    /// ```
    public func line(containing text: String) async -> String? {
        guard let captured else { return nil }
        return await captured.line(containing: text)
    }

    /// Returns once `pid`, not yet reaped, has ended. Its output ends as it exits, so this is
    /// at once but for a child that closes its output and runs on.
    private static func untilEnded(_ pid: pid_t) async {
        var pause = 1
        while true {
            var info = siginfo_t()
            // WNOWAIT: only looks; swift-subprocess reaps it after the body.
            let looked = waitid(P_PID, id_t(pid), &info, WEXITED | WNOHANG | WNOWAIT)
            if looked != 0 && errno != EINTR { return }
            if looked == 0 && processIdentifier(of: info) == pid { return }
            try? await Task.sleep(for: .milliseconds(pause))
            pause = min(pause * 2, 50)
        }
    }

    private static func processIdentifier(of info: siginfo_t) -> pid_t {
        #if canImport(Glibc)
        info._sifields._sigchld.si_pid
        #else
        info.si_pid
        #endif
    }

    /// The CPU time of `pid` once it has ended (a zombie), from /proc/PID/stat; 0 where there is no /proc.
    private static func finalCPUSeconds(of pid: pid_t) async -> Double {
        #if os(Linux)
        let ticks = Double(sysconf(Int32(_SC_CLK_TCK)))
        while true {
            guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
                  let end = stat.lastIndex(of: ")") else { return 0 }
            // After the command name in parentheses: state is field 3, utime 14, stime 15.
            let fields = stat[stat.index(after: end)...].split(separator: " ")
            guard fields.count > 12 else { return 0 }
            if fields[0] == "Z" {
                return ((Double(fields[11]) ?? 0) + (Double(fields[12]) ?? 0)) / ticks
            }
            // Its pipes closed just before it exits: it is a zombie within moments.
            try? await Task.sleep(for: .milliseconds(2))
        }
        #else
        return 0
        #endif
    }

    private static func configuration(_ arguments: [String], environment: [String: String]?, directory: URL?) throws -> Configuration {
        guard let executable = arguments.first else { throw SpawnFailure(arguments: arguments) }
        let environment: Environment = environment.map { values in
            .custom(Dictionary(uniqueKeysWithValues: values.map { (Environment.Key(stringLiteral: $0.key), $0.value) }))
        } ?? .inherit
        return Configuration(
            executable: executable.contains("/") ? .path(FilePath(executable)) : .name(executable),
            arguments: Arguments(Array(arguments.dropFirst())),
            environment: environment,
            workingDirectory: directory.map { FilePath($0.path) })
    }

    private static func shellStatus(_ status: TerminationStatus) -> Int32 {
        switch status {
        case .exited(let code): code
        case .signaled(let signal): 128 + signal
        }
    }

    /// The child could not be started.
    public struct SpawnFailure: Error, CustomStringConvertible {
        public let arguments: [String]
        /// Why, when swift-subprocess said.
        public var cause: String? = nil
        public var description: String { "cannot start \(arguments)" + (cause.map { ": \($0)" } ?? "") }
    }
}
