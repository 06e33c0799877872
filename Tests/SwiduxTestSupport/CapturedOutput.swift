import Subprocess
import Swidux

/// What a ``ChildProcess`` started with its output captured wrote, kept as it arrives, and who
/// waits for a line of it; its CPU time and status once it ended.
final class CapturedOutput: Sendable {
    private struct State {
        var output: [UInt8] = []
        var error: [UInt8] = []
        var ended = false
        var cpuSeconds: Double = 0
        var lineWaiters: [(String, CheckedContinuation<String?, Never>)] = []
    }
    private let state = LockedValue(State())

    /// The child's CPU time, user and system, once it ended (Linux only: 0 elsewhere).
    var cpuSeconds: Double { state.withLock { $0.cpuSeconds } }

    func text(output: Bool) -> String {
        state.withLock { String(decoding: output ? $0.output : $0.error, as: UTF8.self) }
    }

    /// Appends `sequence` to standard output or error as it arrives, until it ends.
    func read(_ sequence: SubprocessOutputSequence, output: Bool) async {
        do {
            for try await buffer in sequence {
                let bytes = buffer.withUnsafeBytes { Array($0) }
                let woken: [(CheckedContinuation<String?, Never>, String)] = state.withLock { state in
                    guard output else {
                        state.error += bytes
                        return []
                    }
                    state.output += bytes
                    var woken: [(CheckedContinuation<String?, Never>, String)] = []
                    state.lineWaiters.removeAll { text, continuation in
                        guard let line = Self.line(in: state.output, containing: text) else { return false }
                        woken.append((continuation, line))
                        return true
                    }
                    return woken
                }
                for (continuation, line) in woken { continuation.resume(returning: line) }
            }
        } catch {
            note("reading its standard \(output ? "output" : "error") failed: \(error)")
        }
    }

    /// Adds a line of ours to standard error (a failure of swift-subprocess, not of the child).
    func note(_ message: String) {
        state.withLock { $0.error += Array("\n\(message)\n".utf8) }
    }

    /// The first line of standard output containing `text`, once written; `nil` when the
    /// child ended without one.
    func line(containing text: String) async -> String? {
        await withCheckedContinuation { continuation in
            let answer: String?? = state.withLock { state in
                if let line = Self.line(in: state.output, containing: text) { return .some(line) }
                if state.ended { return .some(nil) }
                state.lineWaiters.append((text, continuation))
                return nil
            }
            if let answer { continuation.resume(returning: answer) }
        }
    }

    /// The child ended (after `cpuSeconds` of CPU): the lines still awaited never come.
    func finish(cpuSeconds: Double) {
        let waiters = state.withLock { state in
            state.ended = true
            state.cpuSeconds = cpuSeconds
            defer { state.lineWaiters = [] }
            return state.lineWaiters
        }
        for (_, continuation) in waiters { continuation.resume(returning: nil) }
    }

    private static func line(in data: [UInt8], containing text: String) -> String? {
        String(decoding: data, as: UTF8.self).split(separator: "\n").first { $0.contains(text) }.map(String.init)
    }
}
