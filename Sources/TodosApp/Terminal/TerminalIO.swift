#if canImport(Darwin)
import Darwin
#elseif canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// The only file that talks to the operating system's terminal API (termios, ioctl,
/// signals, file descriptors).
enum TerminalIO {
    /// Terminal size in character cells.
    struct Size: Equatable, Sendable {
        var columns: Int
        var rows: Int
        init(columns: Int, rows: Int) { self.columns = columns; self.rows = rows }
    }

    /// `true` if `fd` is a terminal.
    static func isTerminal(_ fd: Int32) -> Bool { isatty(fd) != 0 }

    /// The size of the terminal on `fd` (TIOCGWINSZ), or `nil` when it is not a terminal.
    static func size(of fd: Int32 = STDOUT_FILENO) -> Size? {
        var ws = winsize()
        #if canImport(Darwin)
        let request = UInt(TIOCGWINSZ)
        #else
        let request = UInt(TIOCGWINSZ)
        #endif
        guard ioctl(fd, request, &ws) == 0, ws.ws_col > 0, ws.ws_row > 0 else { return nil }
        return Size(columns: Int(ws.ws_col), rows: Int(ws.ws_row))
    }

    /// Writes all of `string` to `fd`, retrying on short writes and EINTR.
    static func write(_ string: String, to fd: Int32 = STDOUT_FILENO) {
        var bytes = Array(string.utf8)
        var offset = 0
        while offset < bytes.count {
            let n = bytes.withUnsafeMutableBytes { buffer in
                #if canImport(Darwin)
                Darwin.write(fd, buffer.baseAddress! + offset, buffer.count - offset)
                #else
                Glibc.write(fd, buffer.baseAddress! + offset, buffer.count - offset)
                #endif
            }
            if n < 0 {
                if errno == EINTR { continue }
                return
            }
            offset += n
        }
        bytes.removeAll()
    }

    /// Reads what is available on `fd` (blocking until at least one byte). `nil` at end of input.
    static func read(from fd: Int32 = STDIN_FILENO) -> [UInt8]? {
        var buffer = [UInt8](repeating: 0, count: 4096)
        while true {
            let n = buffer.withUnsafeMutableBytes { raw in
                #if canImport(Darwin)
                Darwin.read(fd, raw.baseAddress!, raw.count)
                #else
                Glibc.read(fd, raw.baseAddress!, raw.count)
                #endif
            }
            if n > 0 { return Array(buffer[0..<n]) }
            if n == 0 { return nil }
            if errno == EINTR || errno == EAGAIN { continue }
            return nil
        }
    }

    /// Whether raw mode is on, and the settings to restore. A global because the
    /// signal handlers (plain C functions) must restore the terminal too.
    nonisolated(unsafe) private static var savedAttributes: termios?
    nonisolated(unsafe) private static var savedFD: Int32 = STDIN_FILENO

    /// The escape sequences that leave the full-screen mode (bracketed paste off, show
    /// cursor, main screen).
    static let leaveSequence = "\u{1B}[?2004l\u{1B}[0m\u{1B}[?25h\u{1B}[?1049l"

    /// The escape sequences that enter the full-screen mode (main screen saved, cursor hidden,
    /// screen cleared), with bracketed paste on: a terminal then marks pasted text
    /// (`ESC[200~` … `ESC[201~`), so that a paste is text, never key commands.
    static let enterSequence = "\u{1B}[?1049h\u{1B}[?25l\u{1B}[2J\u{1B}[?2004h"

    /// Puts the terminal on `fd` into raw mode: no echo, no line buffering, no signals
    /// from Ctrl-C/Ctrl-Z (they arrive as keys), no output post-processing is kept.
    /// - Returns: `false` if `fd` is not a terminal.
    @discardableResult
    static func enableRawMode(fd: Int32 = STDIN_FILENO) -> Bool {
        var original = termios()
        guard tcgetattr(fd, &original) == 0 else { return false }
        savedAttributes = original
        savedFD = fd
        var raw = original
        raw.c_iflag &= ~tcflag_t(BRKINT | ICRNL | INPCK | ISTRIP | IXON)
        raw.c_oflag &= ~tcflag_t(OPOST)
        raw.c_cflag |= tcflag_t(CS8)
        raw.c_lflag &= ~tcflag_t(ECHO | ICANON | IEXTEN | ISIG)
        withUnsafeMutableBytes(of: &raw.c_cc) { cc in
            cc[Int(VMIN)] = 1
            cc[Int(VTIME)] = 0
        }
        return tcsetattr(fd, TCSAFLUSH, &raw) == 0
    }

    /// Restores the terminal settings saved by ``enableRawMode(fd:)``. Safe to call twice.
    static func restoreMode() {
        guard var original = savedAttributes else { return }
        tcsetattr(savedFD, TCSAFLUSH, &original)
        savedAttributes = nil
    }

    /// Switches to the alternate screen, hides the cursor and turns bracketed paste on.
    static func enterFullScreen() { write(enterSequence) }

    /// Leaves the alternate screen, shows the cursor and turns bracketed paste off.
    static func leaveFullScreen() { write(leaveSequence) }

    /// Installs handlers that restore the terminal if the process is stopped by a
    /// signal it does not handle gracefully (SIGQUIT, SIGABRT, SIGSEGV…): restore, then
    /// re-raise with the default action. (SIGINT, SIGTERM and SIGHUP quit gracefully.)
    static func installEmergencyRestore() {
        for sig in [SIGQUIT, SIGABRT, SIGSEGV, SIGBUS, SIGILL, SIGFPE] {
            signal(sig, emergencyHandler)
        }
    }

    /// Ignores `signal` so that a `DispatchSource` can handle it instead.
    static func ignore(_ sig: Int32) { signal(sig, SIG_IGN) }
}

/// Async-signal-safe restore: tcsetattr and write only.
private func emergencyHandler(_ sig: Int32) {
    TerminalIO.restoreModeUnsafe()
    signal(sig, SIG_DFL)
    raise(sig)
}

extension TerminalIO {
    fileprivate static func restoreModeUnsafe() {
        if var original = savedAttributes { tcsetattr(savedFD, TCSANOW, &original) }
        let bytes = Array(leaveSequence.utf8)
        _ = bytes.withUnsafeBytes { buffer in
            #if canImport(Darwin)
            Darwin.write(STDOUT_FILENO, buffer.baseAddress!, buffer.count)
            #else
            Glibc.write(STDOUT_FILENO, buffer.baseAddress!, buffer.count)
            #endif
        }
    }
}
