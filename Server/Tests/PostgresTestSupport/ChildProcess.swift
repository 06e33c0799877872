import Foundation
import Synchronization
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A child process started with `posix_spawn` (not Foundation's `Process`, whose termination
/// is reported through a run loop and can hang when many children run at once). Its
/// standard output and error are read on their own threads; it is reaped with `waitpid`
/// on a thread of its own, off the cooperative pool (as the main package's process tests do).
///
/// ```swift
/// let child = try ChildProcess(executable: "/bin/echo", arguments: ["hi"])
/// let status = await child.exitStatus()   // 0
/// ```
public final class ChildProcess: @unchecked Sendable {
    /// The child's process id.
    public let pid: pid_t
    /// What the program was.
    public let executable: String
    /// Guards the fields below.
    private let lock = Mutex(())
    private var out = Data()
    private var err = Data()
    private var status: Int32?
    private var errEnded = false
    private var waiters: [CheckedContinuation<Int32, Never>] = []
    private var lineWaiters: [(String, CheckedContinuation<String?, Never>)] = []

    /// Starts `executable arguments…` with `environment` (default: this process's), standard
    /// input from /dev/null.
    public init(executable: String, arguments: [String], environment: [String: String]? = nil) throws {
        var outPipe: [Int32] = [0, 0], errPipe: [Int32] = [0, 0]
        // Close-on-exec, so that no other child spawned meanwhile (a postgres server) keeps them open.
        guard Self.makePipe(&outPipe), Self.makePipe(&errPipe) else { throw ProcessFailure("pipe failed: errno \(errno)") }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_adddup2(&actions, outPipe[1], 1)
        posix_spawn_file_actions_adddup2(&actions, errPipe[1], 2)
        for fd in outPipe + errPipe { posix_spawn_file_actions_addclose(&actions, fd) }
        let argv = [executable] + arguments
        let envp = (environment ?? ProcessInfo.processInfo.environment).map { "\($0.key)=\($0.value)" }
        var pid = pid_t()
        let spawned = Self.withCStrings(argv) { argv in
            Self.withCStrings(envp) { envp in posix_spawn(&pid, executable, &actions, nil, argv, envp) }
        }
        close(outPipe[1]); close(errPipe[1])
        guard spawned == 0 else {
            close(outPipe[0]); close(errPipe[0])
            throw ProcessFailure("cannot start \(executable): \(String(cString: strerror(spawned)))")
        }
        self.pid = pid
        self.executable = executable
        let child = pid
        let outFD = outPipe[0], errFD = errPipe[0]
        let reader = Thread { [self] in
            let errReader = Thread { [self] in
                Self.readAll(errFD) { chunk in self.lock.withLock { _ in self.err.append(chunk) } }
                self.lock.withLock { _ in self.errEnded = true }
            }
            errReader.start()
            Self.readAll(outFD) { chunk in self.appendOut(chunk) }
            var raw: Int32 = 0
            while waitpid(child, &raw, 0) == -1, errno == EINTR {}
            // Standard error may still be open in a grandchild: wait for its end a moment only.
            for _ in 0..<200 where !self.lock.withLock({ _ in self.errEnded }) { usleep(5000) }
            let signal = raw & 0x7f
            self.finish(signal == 0 ? (raw >> 8) & 0xff : 128 + signal)
        }
        reader.start()
    }

    /// Sends `sig` to the child only (never to a process group or to ourselves).
    public func signal(_ sig: Int32) {
        precondition(pid > 0 && pid != getpid(), "refusing to signal pid \(pid)")
        lock.withLock { _ in if status == nil { _ = kill(pid, sig) } }
    }

    /// Waits for the child to end: its exit status, or 128 + the signal that ended it.
    public func exitStatus() async -> Int32 {
        await withCheckedContinuation { continuation in
            lock.withLock { _ in
                if let status { continuation.resume(returning: status) } else { waiters.append(continuation) }
            }
        }
    }

    /// Blocks the calling thread until the child ends (for exit handlers; never on the
    /// cooperative pool): its exit status.
    public func waitBlocking() -> Int32 {
        while true {
            if let status = lock.withLock({ _ in status }) { return status }
            usleep(2000)
        }
    }

    /// What the child wrote to its standard output so far.
    public var standardOutput: String { lock.withLock { _ in String(decoding: out, as: UTF8.self) } }
    /// What the child wrote to its standard error so far.
    public var standardError: String { lock.withLock { _ in String(decoding: err, as: UTF8.self) } }

    /// Waits for a line of standard output that contains `text`: that line, or `nil` when
    /// the child's output ends first.
    public func line(containing text: String) async -> String? {
        await withCheckedContinuation { continuation in
            lock.withLock { _ in
                if let line = Self.line(in: out, containing: text) { continuation.resume(returning: line) }
                else if status != nil { continuation.resume(returning: nil) }
                else { lineWaiters.append((text, continuation)) }
            }
        }
    }

    private func appendOut(_ chunk: Data) {
        lock.withLock { _ in
            out.append(chunk)
            lineWaiters.removeAll { text, continuation in
                guard let line = Self.line(in: out, containing: text) else { return false }
                continuation.resume(returning: line)
                return true
            }
        }
    }

    private func finish(_ value: Int32) {
        lock.withLock { _ in
            status = value
            for waiter in waiters { waiter.resume(returning: value) }
            waiters = []
            for (_, continuation) in lineWaiters { continuation.resume(returning: nil) }
            lineWaiters = []
        }
    }

    private static func line(in data: Data, containing text: String) -> String? {
        String(decoding: data, as: UTF8.self).split(separator: "\n").first { $0.contains(text) }.map(String.init)
    }

    private static func readAll(_ fd: Int32, _ chunk: (Data) -> Void) {
        var buffer = [UInt8](repeating: 0, count: 65536)
        while true {
            let count = read(fd, &buffer, buffer.count)
            if count > 0 { chunk(Data(buffer[0..<count])) }
            else if count == 0 || errno != EINTR { break }
        }
        close(fd)
    }

    private static func makePipe(_ fds: inout [Int32]) -> Bool {
        guard pipe(&fds) == 0 else { return false }
        for fd in fds { _ = fcntl(fd, F_SETFD, FD_CLOEXEC) }
        return true
    }

    private static func withCStrings<R>(_ strings: [String], _ body: ([UnsafeMutablePointer<CChar>?]) -> R) -> R {
        let pointers = strings.map { strdup($0) }
        defer { pointers.forEach { free($0) } }
        return body(pointers + [nil])
    }

    /// Runs `executable arguments…` to completion: its status and output.
    ///
    /// ```swift
    /// let (status, out, err) = try await ChildProcess.run("/usr/bin/id", ["-u"])
    /// ```
    public static func run(_ executable: String, _ arguments: [String], environment: [String: String]? = nil)
        async throws -> (status: Int32, stdout: String, stderr: String) {
        let child = try ChildProcess(executable: executable, arguments: arguments, environment: environment)
        let status = await child.exitStatus()
        return (status, child.standardOutput, child.standardError)
    }
}

/// A child process that could not be started or did not do what it should.
public struct ProcessFailure: Error, CustomStringConvertible {
    /// What happened.
    public let description: String
    /// A failure with its message.
    public init(_ description: String) { self.description = description }
}
