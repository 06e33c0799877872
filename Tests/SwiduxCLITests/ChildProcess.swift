import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Runs a program to completion without Foundation's `Process`, whose termination is
/// reported through the run loop of the thread that launched it: a Swift-concurrency thread
/// that moved on never sees it, and a blocking `waitUntilExit()` holds one of the few
/// cooperative threads (two on a two-core machine) that every other test needs.
/// Here the child is started with `posix_spawn` and reaped by `waitpid` on a Dispatch
/// thread, outside the cooperative pool.
enum ChildProcess {
    /// Runs `arguments` (looked up on the `PATH`) in `directory`, standard output to
    /// `stdout` and standard error to `stderr` (the same file if equal); returns the exit
    /// status (128 + signal number if killed by a signal).
    static func run(_ arguments: [String], in directory: URL, stdout: String, stderr: String) async throws -> Int32 {
        // The shell does the directory change and the redirections: the same code on Linux and macOS.
        let redirect = stdout == stderr ? #">"$out" 2>&1"# : #">"$out" 2>"$err""#
        let script = #"out=$2; err=$3; cd "$1" || exit 127; shift 3; exec "$@" "# + redirect
        let argv = ["/bin/sh", "-c", script, "sh", directory.path, stdout, stderr] + arguments
        var pid = pid_t()
        let spawned = withCStrings(argv) { argv in posix_spawn(&pid, "/bin/sh", nil, nil, argv, environ) }
        guard spawned == 0 else { throw POSIXError(POSIXErrorCode(rawValue: spawned) ?? .EINVAL) }
        return await withCheckedContinuation { continuation in
            DispatchQueue.global().async { [pid] in
                var status: Int32 = 0
                while waitpid(pid, &status, 0) == -1, errno == EINTR {}
                let signal = status & 0x7f
                continuation.resume(returning: signal == 0 ? (status >> 8) & 0xff : 128 + signal)
            }
        }
    }

    private static func withCStrings<R>(_ strings: [String], _ body: ([UnsafeMutablePointer<CChar>?]) -> R) -> R {
        let pointers = strings.map { strdup($0) }
        defer { pointers.forEach { free($0) } }
        return body(pointers + [nil])
    }
}
