import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// `todos` running in a real pseudo-terminal (its standard input, output and error are the
/// terminal's), as a person runs the full-screen UI. Everything it writes to the terminal is
/// kept in ``screen``; ``type(_:)`` sends key presses.
final class TerminalSession: @unchecked Sendable {
    let pid: pid_t
    private let master: Int32
    private let output = LockedData()
    private let reader: Thread

    /// Starts `todos arguments…` with `environment` in a new session on a new terminal of
    /// `columns` × `rows`.
    init(arguments: [String], environment: [String: String], columns: UInt16 = 80, rows: UInt16 = 24) throws {
        // Linux's pseudo-terminal multiplexer (glibc hides posix_openpt and friends from
        // Swift): unlock the new terminal (TIOCSPTLCK), then ask its number (TIOCGPTN); the
        // request codes are those of the generic ioctl encoding (x86_64, arm64).
        let master = open("/dev/ptmx", O_RDWR | O_NOCTTY)
        var unlock: Int32 = 0, number: UInt32 = 0
        guard master >= 0, ioctl(master, UInt(0x4004_5431), &unlock) == 0, ioctl(master, UInt(0x8004_5430), &number) == 0 else {
            throw ProcessFailure("cannot open a pseudo-terminal: errno \(errno)")
        }
        let slavePath = "/dev/pts/\(number)"
        var size = winsize(ws_row: rows, ws_col: columns, ws_xpixel: 0, ws_ypixel: 0)
        _ = ioctl(master, UInt(TIOCSWINSZ), &size)

        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addclose(&actions, master)
        // A new session (below), so the first terminal opened becomes its controlling one.
        posix_spawn_file_actions_addopen(&actions, 0, slavePath, O_RDWR, 0)
        posix_spawn_file_actions_adddup2(&actions, 0, 1)
        posix_spawn_file_actions_adddup2(&actions, 0, 2)
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        posix_spawnattr_setflags(&attributes, 0x80)   // POSIX_SPAWN_SETSID (glibc), hidden from Swift

        let executable = try todosExecutable().path
        let argv = [executable] + arguments
        let envp = environment.map { "\($0.key)=\($0.value)" }
        var pid = pid_t()
        let pointers = (argv.map { strdup($0) } + [nil], envp.map { strdup($0) } + [nil])
        defer { (pointers.0 + pointers.1).forEach { free($0) } }
        let spawned = posix_spawn(&pid, executable, &actions, &attributes, pointers.0, pointers.1)
        guard spawned == 0 else {
            close(master)
            throw ProcessFailure("cannot start \(executable) in a terminal: errno \(spawned)")
        }
        self.pid = pid
        self.master = master
        let output = self.output
        reader = Thread {
            var buffer = [UInt8](repeating: 0, count: 65536)
            while true {
                let count = read(master, &buffer, buffer.count)
                if count > 0 { output.append(Data(buffer[0..<count])) }
                else if count == 0 || errno != EINTR { break }   // EIO once the child is gone
            }
            output.set(output.value)
        }
        reader.start()
    }

    /// Everything written to the terminal so far, as text.
    var screen: String { String(decoding: output.value, as: UTF8.self) }

    /// Sends `keys` as typed.
    func type(_ keys: String) {
        let bytes = Array(keys.utf8)
        _ = bytes.withUnsafeBytes { write(master, $0.baseAddress, $0.count) }
    }

    /// Waits (up to `seconds`) for the program to exit; its exit status, or `nil` if it is
    /// still running (then it is killed).
    func waitForExit(seconds: Double = 20) async -> Int32? {
        let deadline = Date().addingTimeInterval(seconds)
        var status: Int32 = 0
        while Date() < deadline {
            let result = waitpid(pid, &status, WNOHANG)
            if result == pid {
                while !output.isSet { try? await Task.sleep(for: .milliseconds(10)) }
                close(master)
                return (status & 0x7f) == 0 ? (status >> 8) & 0xff : 128 + (status & 0x7f)
            }
            try? await Task.sleep(for: .milliseconds(50))
        }
        kill(pid, SIGKILL)
        while waitpid(pid, &status, 0) == -1, errno == EINTR {}
        close(master)
        return nil
    }
}

/// Waits up to `seconds` for `condition`, checking every 50 ms.
func waitUntil(seconds: Double = 20, _ condition: () -> Bool) async -> Bool {
    let deadline = Date().addingTimeInterval(seconds)
    while Date() < deadline {
        if condition() { return true }
        try? await Task.sleep(for: .milliseconds(50))
    }
    return condition()
}
