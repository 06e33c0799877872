import Foundation
import SwiduxTestSupport
import Testing
@testable import TodosApp
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
#if canImport(System)
import System
#else
import SystemPackage
#endif

/// `todos` running in a real pseudo-terminal (its standard input, output and error, and its
/// controlling terminal), as a person runs the full-screen UI. Everything it writes to the
/// terminal is kept (``rawOutput``, and ``screen`` rebuilt from it); ``type(_:)`` and
/// ``send(_:)`` press keys.
///
/// ```swift
/// let session = try await TerminalSession.start(box: box)
/// await session.waitFor("the empty list") { $0.text.contains("No items yet") }
/// await session.type("q")
/// #expect(await session.waitForExit() == 0)
/// ```
final class TerminalSession: @unchecked Sendable {
    /// The process, through the shared child-process helper.
    let child: ChildProcess
    var pid: pid_t { child.processIdentifier }
    private let leader: Int32
    private let output = LockedData()
    private let leaderClosed = LockedValue(false)
    // Touched only by the test's own task (resize, then reading the screen).
    private var size: TerminalIO.Size
    private var outputOffset = 0

    private init(child: ChildProcess, leader: Int32, size: TerminalIO.Size) {
        self.child = child
        self.leader = leader
        self.size = size
    }

    /// Starts `todos arguments…` in the sandbox `box` (or with `environment`, which replaces
    /// the sandbox's) on a new terminal of `columns` × `rows`.
    static func start(box: Sandbox? = nil, arguments: [String] = [], environment: [String: String]? = nil,
                      columns: Int = 80, rows: Int = 24) async throws -> TerminalSession {
        var leader: Int32 = -1, follower: Int32 = -1
        var windowSize = winsize(ws_row: UInt16(rows), ws_col: UInt16(columns), ws_xpixel: 0, ws_ypixel: 0)
        guard openpty(&leader, &follower, nil, nil, &windowSize) == 0 else {
            throw ProcessFailure("cannot open a pseudo-terminal: errno \(errno)")
        }
        var environment = environment ?? box?.environment ?? ProcessInfo.processInfo.environment
        // A terminal the UI can draw on, unless the test chose one.
        if environment["TERM"].map({ $0.isEmpty || $0 == "dumb" }) ?? true { environment["TERM"] = "xterm-256color" }
        let child: ChildProcess
        do {
            child = try await ChildProcess.start([try todosExecutable().path] + arguments, environment: environment,
                                                 terminal: FileDescriptor(rawValue: follower))
        } catch {
            close(leader)
            close(follower)
            throw error
        }
        // The child holds its own copies: once it ends, reading the leader side reports the end.
        close(follower)
        let session = TerminalSession(child: child, leader: leader, size: TerminalIO.Size(columns: columns, rows: rows))
        let output = session.output
        let reading = leader
        // A thread of its own: a blocking read would hold one of the few cooperative threads.
        Thread {
            var buffer = [UInt8](repeating: 0, count: 65536)
            while true {
                let count = read(reading, &buffer, buffer.count)
                if count > 0 { output.append(Data(buffer[0..<count])) }
                else if count == 0 || errno != EINTR { break }   // EIO once the child is gone
            }
            output.set(output.value)
        }.start()
        return session
    }

    /// Everything written to the terminal so far, escape sequences included.
    var rawOutput: String { String(decoding: output.value, as: UTF8.self) }

    /// The screen as drawn since the last resize.
    var screen: VirtualScreen {
        var screen = VirtualScreen(size: size)
        screen.feed(String(decoding: output.value.dropFirst(outputOffset), as: UTF8.self))
        return screen
    }

    /// Sends `keys` at once, as a paste or a fast typist does.
    func send(_ keys: String) {
        let bytes = Array(keys.utf8)
        _ = bytes.withUnsafeBytes { write(leader, $0.baseAddress, $0.count) }
    }

    /// Types `text`, then leaves the app a moment to read it (keys typed one after another
    /// reach it in separate reads).
    func type(_ text: String) async {
        send(text)
        try? await Task.sleep(for: .milliseconds(60))
    }

    /// Sends the signal `signal` to the program.
    func signal(_ signal: Int32) { child.send(signal) }

    /// Resizes the terminal (the app polls the size); the screen is parsed from here on.
    func resize(columns: Int, rows: Int) {
        outputOffset = output.value.count
        size = TerminalIO.Size(columns: columns, rows: rows)
        var windowSize = winsize(ws_row: UInt16(rows), ws_col: UInt16(columns), ws_xpixel: 0, ws_ypixel: 0)
        _ = ioctl(leader, UInt(TIOCSWINSZ), &windowSize)
    }

    /// Waits (up to 10 s) until the screen satisfies `predicate`; records an issue otherwise.
    @discardableResult
    func waitFor(_ description: String, _ predicate: (VirtualScreen) -> Bool) async -> Bool {
        for _ in 0..<200 {
            if predicate(screen) { return true }
            try? await Task.sleep(for: .milliseconds(50))
        }
        Issue.record("screen never showed \(description):\n\(screen.text)")
        return false
    }

    /// Waits (up to `seconds`) for the program to exit; its exit status, or `nil` if it was
    /// still running (then it is killed).
    func waitForExit(seconds: Double = 20) async -> Int32? {
        let deadline = ContinuousClock.now + .milliseconds(Int(seconds * 1000))
        while !child.hasEnded, ContinuousClock.now < deadline {
            try? await Task.sleep(for: .milliseconds(50))
        }
        let ended = child.hasEnded
        if !ended { child.send(SIGKILL) }
        let status = try? await child.wait()
        // What it wrote last is read before the terminal goes.
        let drained = ContinuousClock.now + .seconds(5)
        while !output.isSet, ContinuousClock.now < drained { try? await Task.sleep(for: .milliseconds(10)) }
        // Closed only once the reading thread is done with it, and only once: a descriptor closed
        // under a reader, or twice, reads or closes whatever took its number next.
        if output.isSet, leaderClosed.withLock({ closed in defer { closed = true }; return !closed }) { close(leader) }
        return ended ? status : nil
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
