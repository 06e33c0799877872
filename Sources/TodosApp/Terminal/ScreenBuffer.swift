/// The last frame written to the terminal; writes only the lines that changed.
///
/// ```swift
/// var screen = ScreenBuffer()
/// let output = screen.update(to: lines)   // escape sequences + changed lines
/// TerminalIO.write(output)
/// ```
struct ScreenBuffer: Sendable {
    private var current: [String] = []
    private var size: TerminalIO.Size?

    init() {}

    /// Forgets the previous frame so that the next update repaints everything.
    mutating func invalidate() { current = []; size = nil }

    /// The output that turns the previous frame into `lines` on a terminal of `size`.
    /// Lines must already be fitted to the width (see ``DisplayWidth/fit(_:toWidth:)``).
    mutating func update(to lines: [String], size newSize: TerminalIO.Size) -> String {
        var output = ""
        if newSize != size {
            output += "\u{1B}[0m\u{1B}[2J"
            current = []
            size = newSize
        }
        for (row, line) in lines.enumerated() where row < newSize.rows {
            if row < current.count, current[row] == line { continue }
            output += "\u{1B}[\(row + 1);1H\u{1B}[0m" + line + "\u{1B}[0m\u{1B}[K"
        }
        current = lines
        return output
    }
}
