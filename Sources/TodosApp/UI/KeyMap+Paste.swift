import Foundation

extension KeyMap {
    /// The commands for a pasted `text` (bracketed paste): text for the field it lands in,
    /// never key commands. In the add field every non-blank line becomes one item (and the
    /// status says how many); in another field the lines are joined with spaces; with no
    /// field open the paste is ignored and the status says so.
    ///
    /// A line the add field refuses (too long, tags alone, an invalid tag) adds nothing: a
    /// single line is kept in the field for editing, with the reason; of several lines, the
    /// first refused one is named.
    static func paste(_ text: String, state: AppState, makeID: () -> UUID) -> [Command] {
        let lines = pastedLines(text)
        let filled = lines.filter { !$0.allSatisfy(\.isWhitespace) }
        guard let mode = state.ui.input else {
            let hint = state.ui.screen == .lists ? "press a to add a list" : "press a to add items, then paste"
            return filled.isEmpty ? [] : [.send(.ui(.notice("Pasted text ignored: it goes into an input line (\(hint))")))]
        }
        let isSearch = mode == .search
        let typed = isSearch ? state.ui.searchText : state.ui.draft
        func changed(_ new: String) -> [Command] {
            isSearch ? [.send(.search(.textChanged(new)))] : [.send(.ui(.draftChanged(new)))]
        }
        guard !filled.isEmpty else { return [] }
        // One line (a trailing line break aside, which pastes often carry) is typed text,
        // except in the add field, where a pasted line that ends with a break is an item.
        let endsWithBreak = lines.count > 1 && lines.last?.allSatisfy(\.isWhitespace) == true
        if filled.count == 1, lines.count == 1 || (mode != .addItem && endsWithBreak) {
            return changed(typed + filled[0])
        }
        guard mode == .addItem else {
            return changed(typed + filled.joined(separator: " "))
                + [.send(.ui(.notice("Pasted \(filled.count) lines as one (only the add field makes an item of each line)")))]
        }
        guard let list = state.currentList else { return [] }
        // The text already typed starts the first pasted line.
        var items = filled
        items[0] = typed + items[0]
        var commands: [Command] = [.send(.ui(.endInput))]
        for (number, line) in items.enumerated() {
            let (title, tags) = parseTitle(line)
            if let refusal = ItemsReducer.refusal(title: title, tags: tags) {
                if items.count == 1 {
                    return changed(line) + [.send(.ui(.warning(refusal)))]
                }
                return [.send(.ui(.warning("Nothing pasted: line \(number + 1) of \(items.count): \(refusal)")))]
            }
            commands.append(.send(.items(.add(id: makeID(), listID: list.id, title: title, tags: tags))))
        }
        let count = items.count
        return commands + [.send(.ui(.notice("Added \(count) item\(count == 1 ? "" : "s") from the pasted line\(count == 1 ? "" : "s")")))]
    }

    /// The lines of a pasted text: CR, LF and CR LF end a line; tabs become spaces; other
    /// control characters are not text and are left out.
    static func pastedLines(_ text: String) -> [String] {
        var lines: [String] = []
        var line = String.UnicodeScalarView()
        var afterCR = false
        for scalar in text.unicodeScalars {
            defer { afterCR = scalar == "\r" }
            switch scalar {
            case "\n" where afterCR:
                continue
            case "\r", "\n":
                lines.append(String(line))
                line = String.UnicodeScalarView()
            case "\t":
                line.append(" ")
            default:
                if ControlCharacters.isControl(scalar) { continue }
                line.append(scalar)
            }
        }
        lines.append(String(line))
        return lines
    }
}
