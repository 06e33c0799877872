import Foundation

/// `todos replay FILE --interactive`: time travel through a replayed session. The top of the
/// screen is the app as it looked after the current step (rendered from the replayed state);
/// below, the step and the state difference it made. ←/→ (or k/j, ↑/↓) move by one step,
/// g/G (Home/End) to the start and the end, q quits.
@MainActor
enum ReplayViewer {
    /// Position 0 is the start (before the first step); position `n` is after step `n - 1`.
    static func frame(_ session: ReplayedSession, position: Int, size: TerminalIO.Size) -> [String] {
        let steps = session.steps
        let detail: [String]
        let state: AppState
        if position == 0 || steps.isEmpty {
            state = session.initialState
            detail = ["start of the recording (\(session.recording.steps.count) steps)"]
        } else {
            let replayed = steps[min(position, steps.count) - 1]
            state = replayed.after
            detail = ReplayedSession.lines(for: replayed)
        }
        let panelRows = max(3, min(detail.count + 1, size.rows / 2))
        let appRows = max(1, size.rows - panelRows)
        var lines = Render.screen(state, size: TerminalIO.Size(columns: size.columns, rows: appRows))
        lines = Array(lines.prefix(appRows))
        while lines.count < appRows { lines.append("") }
        let help = "replay \(position)/\(steps.count)  ←/→ step  g/G start/end  q quit"
        lines.append(DisplayWidth.fit("\u{2500} " + help + " " + String(repeating: "\u{2500}", count: max(0, size.columns)), toWidth: size.columns))
        for line in detail.prefix(panelRows - 1) { lines.append(DisplayWidth.fit(line, toWidth: size.columns)) }
        return lines
    }

    /// The position after `key` (`nil`: quit).
    static func move(_ key: KeyEvent, from position: Int, last: Int) -> Int? {
        switch key {
        case .character("q"), .escape, .control("c"): return nil
        case .right, .down, .character("j"), .character("l"), .character(" "), .enter: return min(position + 1, last)
        case .left, .up, .character("k"), .character("h"), .backspace: return max(position - 1, 0)
        case .home, .character("g"): return 0
        case .end, .character("G"): return last
        case .pageDown: return min(position + 10, last)
        case .pageUp: return max(position - 10, 0)
        default: return position
        }
    }

    static func run(_ session: ReplayedSession) async throws {
        guard TerminalIO.isTerminal(STDIN_FILENO), TerminalIO.isTerminal(STDOUT_FILENO) else {
            throw TodosError("--interactive needs a terminal; without it, the steps are printed")
        }
        TerminalIO.installEmergencyRestore()
        guard TerminalIO.enableRawMode() else { throw TodosError("cannot switch the terminal to raw mode") }
        TerminalIO.enterFullScreen()
        defer {
            TerminalIO.leaveFullScreen()
            TerminalIO.restoreMode()
        }
        var screen = ScreenBuffer()
        var decoder = KeyDecoder()
        // Opens where the replay stopped: at the step that differs, if one does.
        var position = session.steps.count
        let last = session.steps.count
        while true {
            let size = TerminalIO.size() ?? TerminalIO.Size(columns: 80, rows: 24)
            TerminalIO.write(screen.update(to: frame(session, position: position, size: size), size: size))
            guard let bytes = await Task.detached(operation: { TerminalIO.read() }).value else { return }
            for key in decoder.feed(bytes) {
                guard let next = move(key, from: position, last: last) else { return }
                position = next
            }
        }
    }
}
