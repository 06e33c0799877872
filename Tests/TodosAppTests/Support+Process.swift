import Foundation
import Swidux
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The built `todos` executable, next to the test bundle in the build products directory.
/// `TODOS_EXECUTABLE` overrides it (to run the process tests against another build, e.g.
/// the one before a fix, and watch them fail).
func todosExecutable() throws -> URL {
    if let override = ProcessInfo.processInfo.environment["TODOS_EXECUTABLE"], !override.isEmpty {
        return URL(fileURLWithPath: override)
    }
    var candidates: [URL] = []
    if let exe = try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe") {
        candidates.append(URL(fileURLWithPath: exe).deletingLastPathComponent())
    }
    let bundle = Bundle.main.bundleURL
    candidates += [bundle, bundle.deletingLastPathComponent(), bundle.deletingLastPathComponent().deletingLastPathComponent()]
    for directory in candidates {
        let url = directory.appendingPathComponent("todos")
        var isDirectory: ObjCBool = false
        if FileManager.default.fileExists(atPath: url.path, isDirectory: &isDirectory), !isDirectory.boolValue,
           FileManager.default.isExecutableFile(atPath: url.path) {
            return url
        }
    }
    throw ProcessFailure("the todos executable was not found next to the tests in \(candidates.map(\.path)); run `swift build` first")
}

/// Sends `sig` to the child `process` only (never to a process group or to ourselves).
func signalChild(_ process: Process, _ sig: Int32) {
    let pid = process.processIdentifier
    precondition(pid > 0 && pid != getpid(), "refusing to signal pid \(pid)")
    kill(pid, sig)
}

struct ProcessFailure: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}

struct RunResult {
    var status: Int32
    var stdout: String
    var stderr: String
    /// The child's CPU time, user and system (from `wait4`).
    var cpuSeconds: Double = 0
    /// The child's wall-clock time.
    var wallSeconds: Double = 0
}

/// Runs blocking work (waiting for a child process) on its own thread, so that the
/// (small) cooperative thread pool stays free for the other tests.
func offPool<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
    try await withCheckedThrowingContinuation { continuation in
        Thread { continuation.resume(with: Result { try body() }) }.start()
    }
}

/// Runs a program to completion without Foundation's `Process` (whose termination is
/// reported through a run loop and can hang when many children run at once): the child
/// is started with `posix_spawn`, its standard output and error are read on their own
/// threads and it is reaped with `waitpid`. Blocking: call it through ``offPool(_:)``.
enum ChildProcess {
    /// Runs `executable arguments…` with `environment`, standard input from /dev/null,
    /// optionally as another user (`setpriv`, when run as root). Returns the exit status
    /// (128 + the signal number when killed by a signal) and the captured output.
    static func run(executable: String, arguments: [String], environment: [String: String]) throws -> RunResult {
        var outPipe: [Int32] = [0, 0], errPipe: [Int32] = [0, 0]
        guard pipe(&outPipe) == 0, pipe(&errPipe) == 0 else { throw ProcessFailure("pipe failed: errno \(errno)") }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_adddup2(&actions, outPipe[1], 1)
        posix_spawn_file_actions_adddup2(&actions, errPipe[1], 2)
        for fd in outPipe + errPipe { posix_spawn_file_actions_addclose(&actions, fd) }
        let argv = [executable] + arguments
        let envp = environment.map { "\($0.key)=\($0.value)" }
        var pid = pid_t()
        let started = Date()
        let spawned = withCStrings(argv) { argv in
            withCStrings(envp) { envp in posix_spawn(&pid, executable, &actions, nil, argv, envp) }
        }
        close(outPipe[1]); close(errPipe[1])
        guard spawned == 0 else {
            close(outPipe[0]); close(errPipe[0])
            throw ProcessFailure("cannot start \(executable): errno \(spawned)")
        }
        let errData = LockedData()
        let errFD = errPipe[0]
        let errReader = Thread { errData.set(readAll(errFD)) }
        errReader.start()
        let outData = readAll(outPipe[0])
        var status: Int32 = 0
        var usage = rusage()
        while wait4(pid, &status, 0, &usage) == -1, errno == EINTR {}
        let wall = Date().timeIntervalSince(started)
        let cpu = Double(usage.ru_utime.tv_sec + usage.ru_stime.tv_sec)
            + Double(usage.ru_utime.tv_usec + usage.ru_stime.tv_usec) / 1_000_000
        while !errData.isSet { usleep(1000) }
        close(outPipe[0]); close(errPipe[0])
        let signal = status & 0x7f
        return RunResult(status: signal == 0 ? (status >> 8) & 0xff : 128 + signal,
                         stdout: String(decoding: outData, as: UTF8.self),
                         stderr: String(decoding: errData.value, as: UTF8.self),
                         cpuSeconds: cpu, wallSeconds: wall)
    }

    private static func readAll(_ fd: Int32) -> Data {
        var data = Data()
        var buffer = [UInt8](repeating: 0, count: 65536)
        while true {
            let count = read(fd, &buffer, buffer.count)
            if count > 0 { data.append(contentsOf: buffer[0..<count]) }
            else if count == 0 || errno != EINTR { break }
        }
        return data
    }

    private static func withCStrings<R>(_ strings: [String], _ body: ([UnsafeMutablePointer<CChar>?]) -> R) -> R {
        let pointers = strings.map { strdup($0) }
        defer { pointers.forEach { free($0) } }
        return body(pointers + [nil])
    }
}

/// A scratch directory with a database path for one test.
struct Sandbox: Sendable {
    let directory: URL
    var database: String { directory.appendingPathComponent("todos.sqlite").path }

    init() throws {
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("todos-e2e-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    }

    var environment: [String: String] {
        var env = ProcessInfo.processInfo.environment
        env["TODOS_DB"] = database
        env["HOME"] = directory.path
        env.removeValue(forKey: "XDG_DATA_HOME")
        return env
    }

    /// Runs `todos arguments…` to completion.
    func run(_ arguments: String..., environment: [String: String]? = nil) async throws -> RunResult {
        try await run(arguments: arguments, environment: environment)
    }

    func run(arguments: [String], environment: [String: String]? = nil) async throws -> RunResult {
        let environment = environment ?? self.environment
        return try await offPool { try Self.blockingRun(arguments: arguments, environment: environment) }
    }

    private static func blockingRun(arguments: [String], environment: [String: String]) throws -> RunResult {
        try ChildProcess.run(executable: todosExecutable().path, arguments: arguments, environment: environment)
    }

    /// Runs `todos arguments…` as the unprivileged user `nobody` (through `setpriv`), or
    /// returns `nil` when the tests do not run as root (then permissions already apply).
    func runUnprivileged(arguments: [String]) async throws -> RunResult? {
        guard getuid() == 0, FileManager.default.isExecutableFile(atPath: "/usr/bin/setpriv") else { return nil }
        let environment = self.environment
        let todos = try todosExecutable().path
        return try await offPool {
            try ChildProcess.run(executable: "/usr/bin/setpriv",
                                 arguments: ["--reuid=65534", "--regid=65534", "--clear-groups", todos] + arguments,
                                 environment: environment)
        }
    }

    /// The bytes of the file at `path`, or `nil` if there is none.
    func bytes(_ path: String) -> Data? { FileManager.default.contents(atPath: path) }

    /// `todos add …`; returns the new id (fails the call on a non-zero exit).
    func add(_ arguments: String...) async throws -> String {
        let result = try await run(arguments: ["add"] + arguments)
        guard result.status == 0 else { throw ProcessFailure("add \(arguments) failed: \(result.stderr)") }
        return result.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
    }

    /// `todos list --json …`, decoded.
    func listJSON(_ extra: String...) async throws -> [ItemRecord] {
        let result = try await run(arguments: ["list", "--json"] + extra)
        guard result.status == 0 else { throw ProcessFailure("list failed: \(result.stderr)") }
        return try JSONDecoder().decode([ItemRecord].self, from: Data(result.stdout.utf8))
    }
}

/// One element of `todos list --json`.
struct ItemRecord: Decodable, Equatable {
    var id: String
    var title: String
    var list: String
    var done: Bool
    var tags: [String]
}

final class LockedData: @unchecked Sendable {
    private let lock = LockedValue(())
    private var data = Data()
    private var done = false
    func set(_ value: Data) { lock.withLock { _ in data = value; done = true } }
    func append(_ value: Data) { lock.withLock { _ in data.append(value) } }
    var value: Data { lock.withLock { _ in data } }
    var isSet: Bool { lock.withLock { _ in done } }
}
