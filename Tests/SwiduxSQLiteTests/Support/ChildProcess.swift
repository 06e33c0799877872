import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Child processes started with `posix_spawn` and reaped by `waitpid` on a Dispatch
/// thread, so that waiting never holds one of the few cooperative threads the other
/// tests need (Foundation's `Process` reports termination through a run loop).
enum ChildProcess {
    /// Starts `arguments` (an absolute executable path first) with standard output and
    /// standard error appended to `output`; returns its pid.
    static func spawn(_ arguments: [String], output: String) throws -> pid_t {
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 1, output, O_WRONLY | O_CREAT | O_APPEND, 0o644)
        posix_spawn_file_actions_adddup2(&actions, 1, 2)
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        var pid = pid_t()
        let pointers = arguments.map { strdup($0) }
        defer { pointers.forEach { free($0) } }
        let spawned = posix_spawn(&pid, arguments[0], &actions, nil, pointers + [nil], environ)
        guard spawned == 0 else { throw POSIXError(POSIXErrorCode(rawValue: spawned) ?? .EINVAL) }
        return pid
    }

    /// Waits for `pid` off the cooperative pool; the exit status, or 128 + the signal.
    static func wait(_ pid: pid_t) async -> Int32 {
        await withCheckedContinuation { continuation in
            DispatchQueue.global().async {
                var status: Int32 = 0
                while waitpid(pid, &status, 0) == -1, errno == EINTR {}
                let signal = status & 0x7f
                continuation.resume(returning: signal == 0 ? (status >> 8) & 0xff : 128 + signal)
            }
        }
    }

    /// Runs `arguments` to completion, output to `output` (truncated first).
    static func run(_ arguments: [String], output: String) async throws -> Int32 {
        _ = FileManager.default.createFile(atPath: output, contents: nil)
        return await wait(try spawn(arguments, output: output))
    }
}
