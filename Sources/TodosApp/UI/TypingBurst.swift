import Foundation

/// Pasted text for terminals without bracketed paste: keys that arrive faster than a person
/// types, right after a key typed into an input line, are still text — never key commands.
///
/// A paste of several lines into the add field arrives as "buy food⏎delete old files⏎…": the
/// first ⏎ adds "buy food" and closes the field; without this, "d" would then delete it. Here
/// the keys that follow within ``gap`` reopen the add field and are typed into it, so every
/// line becomes one item. After a line break in another field the rest of the burst is left
/// out (and the status says so). Pure: the terminal UI gives each key its arrival time.
///
/// ```swift
/// var burst = TypingBurst()
/// let commands = burst.commands(for: .character("d"), at: .now, state: app.store.state, makeID: { UUID() })
/// ```
struct TypingBurst {
    /// Keys closer than this to the previous text key belong to the same burst: a person's
    /// keys are 50 ms apart or more; a paste's arrive together, or a few ms apart when a
    /// terminal or multiplexer writes it in pieces.
    static let gap: Duration = .milliseconds(30)

    /// When the last text key arrived, and the field it went to.
    private var last: (at: ContinuousClock.Instant, mode: InputMode)?
    /// Items the current burst added by its line breaks.
    private(set) var addedLines = 0
    /// Whether the current burst had keys left out (after a line break outside the add field).
    private(set) var leftOut = false

    /// The commands for `key`, arrived at `time`, in `state`.
    mutating func commands(for key: KeyEvent, at time: ContinuousClock.Instant, state: AppState,
                           makeID: () -> UUID) -> [Command] {
        let inBurst = last.map { time - $0.at <= Self.gap } ?? false
        if !inBurst { last = nil; addedLines = 0; leftOut = false }
        switch key {
        case .control("c"), .paste, .oversizedPaste:
            last = nil
            return KeyMap.commands(for: key, state: state, makeID: makeID)
        default:
            break
        }
        if let mode = state.ui.input {
            // In a field: the key map types text and commits on ⏎; a pasted tab is a space.
            let key = inBurst && key == .tab ? .character(" ") : key
            let commands = KeyMap.commands(for: key, state: state, makeID: makeID)
            switch key {
            case .character, .enter, .backspace:
                last = (time, mode)
                if inBurst, key == .enter, commands.contains(where: Self.addsItem) { addedLines += 1 }
            default:
                last = nil
            }
            return commands
        }
        guard inBurst, let previous = last else { return KeyMap.commands(for: key, state: state, makeID: makeID) }
        // The field was closed by a line break of the burst: what follows is still text.
        last = (time, previous.mode)
        switch key {
        case .character(let c) where previous.mode == .addItem && state.ui.screen == .items && state.currentList != nil:
            return [.send(.ui(.beginInput(.addItem, draft: String(c))))]
        case .character(" "), .enter:
            return []   // blank lines and leading spaces of a line
        default:
            leftOut = true
            return []
        }
    }

    private static func addsItem(_ command: Command) -> Bool {
        if case .send(.items(.add)) = command { return true }
        return false
    }
}
