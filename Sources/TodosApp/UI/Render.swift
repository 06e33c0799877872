import Foundation

/// The view: a pure function from state (plus the current status message) to the
/// lines of the screen, each exactly `size.columns` wide and `size.rows` lines in all.
enum Render {
    /// Renders `state` for a terminal of `size`. `status` is the latest one-shot status
    /// message; `mark` a lasting one shown at the right of the status line (the sync state).
    /// `shared`: the lists shared with other users, each with whether this user may change it
    /// (marked "shared", or "read-only").
    static func screen(_ state: AppState, size: TerminalIO.Size, status: String? = nil, mark: String? = nil,
                       shared: [UUID: Bool] = [:]) -> [String] {
        let width = size.columns, height = size.rows
        // Three header lines, at least one row, the rule, the filter/input line, the footer.
        guard width >= minimumSize.columns, height >= minimumSize.rows else {
            var lines = Array(repeating: String(repeating: " ", count: max(width, 0)), count: max(height, 0))
            if height > 0 {
                // As much of the message as fits, the minimum size first when it is narrow.
                let message = width >= 36 ? "Window too small: need \(minimumSize.columns)×\(minimumSize.rows) or more"
                    : width >= 16 ? "Too small: \(minimumSize.columns)×\(minimumSize.rows)+"
                    : "small \(minimumSize.columns)×\(minimumSize.rows)"
                lines[0] = DisplayWidth.fit(message, toWidth: width)
            }
            return lines
        }
        var lines: [String]
        switch state.ui.screen {
        case .items: lines = itemsScreen(state, width: width, height: height, shared: shared)
        case .lists: lines = listsScreen(state, width: width, height: height, shared: shared)
        case .help: lines = helpScreen(width: width, height: height)
        }
        lines.append(footer(state, status: status, mark: mark, width: width))
        return lines.map { DisplayWidth.fit(sanitize($0), toWidth: width) }
    }

    /// The smallest window that shows one row of items.
    static let minimumSize = TerminalIO.Size(columns: 20, rows: 7)

    /// User text (names, titles, tags, typed input) with control characters shown as "?",
    /// before any width is measured: a control character is drawn one column wide.
    static func text(_ string: String) -> String { ControlCharacters.neutralize(string) }

    /// Replaces control characters (which would be interpreted by the terminal) with "?".
    static func sanitize(_ text: String) -> String { ControlCharacters.neutralize(text) }

    /// "left" and "right" on one line, right-aligned when there is room.
    static func spread(_ left: String, _ right: String, width: Int) -> String {
        let gap = width - DisplayWidth.of(left) - DisplayWidth.of(right)
        guard gap >= 1 else { return left }
        return left + String(repeating: " ", count: gap) + right
    }

    static func rule(_ width: Int) -> String { String(repeating: "─", count: width) }

    /// " (shared)", " (read-only)" or nothing, after a list's name.
    static func sharedMark(_ id: UUID, _ shared: [UUID: Bool]) -> String {
        guard let writable = shared[id] else { return "" }
        return writable ? " (shared)" : " (shared, read-only)"
    }

    private static func itemsScreen(_ state: AppState, width: Int, height: Int, shared: [UUID: Bool]) -> [String] {
        let list = state.currentList
        let counts = state.counts
        var lines: [String] = []
        lines.append(spread(" Todos ▸ \(list.map { text($0.name) + sharedMark($0.id, shared) } ?? "(no list)")",
                            "\(counts.active) active · \(counts.completed) done ", width: width))
        let tabs = state.lists.map { tab -> String in
            let name = text(tab.name) + (shared[tab.id] == nil ? "" : "⇄")
            return tab.id == list?.id ? "[\(name)]" : " \(name) "
        }.joined(separator: " ")
        lines.append(" Lists: " + tabs)
        lines.append(rule(width))

        let visible = state.visibleIDs
        let rows = height - 6
        let selected = state.selectedIndex
        // When the items do not fit, the last row says how many more there are (if there
        // are two rows or more), and the window scrolls so that the selection is on screen.
        var slots = rows
        var offset = max(0, (selected ?? 0) - (rows - 1))
        if offset + rows < visible.count, rows >= 2 {
            slots = rows - 1
            offset = min(max(0, (selected ?? 0) - (slots - 1)), visible.count - slots)
        }
        if visible.isEmpty {
            let empty: String
            if list == nil { empty = "No lists. Press l, then a to create one." }
            else if !state.ui.searchQuery.isEmpty { empty = "No items match “\(text(state.ui.searchQuery))”." }
            else if counts.total == 0 { empty = "No items yet. Press a to add one." }
            else { empty = "No \(state.ui.filter.rawValue) items." }
            lines.append("   " + empty)
        }
        // Only the rows on screen are read (the visible list is memoized, see AppState+Derived).
        let shown = visible.indices.dropFirst(offset).prefix(slots)
        for (index, id) in zip(shown, visible[shown]) {
            guard let item = state.items[id] else { continue }
            let marker = index == selected ? " ▸ " : "   "
            let box = item.isDone ? "[x] " : "[ ] "
            let tags = state.tags(of: item.id).map { "#\(text($0.name))" }.joined(separator: " ")
            let tagWidth = tags.isEmpty ? 0 : DisplayWidth.of(tags) + 2
            let titleWidth = max(width - 7 - min(tagWidth, width / 3), 10)
            var line = marker + box + DisplayWidth.truncate(text(item.title), toWidth: titleWidth)
            if !tags.isEmpty { line += "  " + tags }
            lines.append(line)
        }
        if slots < rows, offset + slots < visible.count { lines.append("   … \(visible.count - offset - slots) more") }
        while lines.count < height - 3 { lines.append("") }
        lines.append(rule(width))
        lines.append(inputLine(state, width: width) ?? " Filter: \(state.ui.filter.rawValue)"
                     + (state.ui.searchQuery.isEmpty ? "" : " · Search: \(text(state.ui.searchQuery))")
                     + " · \(visible.count) shown of \(counts.total)")
        return lines
    }

    private static func listsScreen(_ state: AppState, width: Int, height: Int, shared: [UUID: Bool]) -> [String] {
        var lines = [spread(" Todos ▸ Lists", "\(state.lists.count) list\(state.lists.count == 1 ? "" : "s") ", width: width), "", rule(width)]
        let rows = height - 6
        let offset = max(0, state.ui.listCursor - (rows - 1))
        if state.lists.isEmpty { lines.append("   No lists. Press a to create one.") }
        let counts = state.countsByList
        for (index, list) in state.lists.enumerated().dropFirst(offset).prefix(rows) {
            let listCounts = counts[list.id] ?? ItemCounts()
            let (total, done) = (listCounts.total, listCounts.done)
            let marker = index == state.ui.listCursor ? " ▸ " : "   "
            let current = list.id == state.currentList?.id ? " *" : ""
            let name = DisplayWidth.truncate(text(list.name), toWidth: max(width - 30, 10)) + sharedMark(list.id, shared)
            lines.append(spread(marker + name + current, "\(total - done) active · \(done) done ", width: width))
        }
        while lines.count < height - 3 { lines.append("") }
        lines.append(rule(width))
        lines.append(inputLine(state, width: width) ?? " ⏎ open · a add · e rename · d delete · esc back")
        return lines
    }

    static let helpText = [
        " Items                                Lists (l)",
        "   j/k ↑/↓  move          a  add        j/k  move     ⏎  open",
        "   a        add (#tags)   e  edit       a    add      e  rename",
        "   space/x  toggle done   d  delete     d    delete   esc back",
        "   J/K      reorder       t  add tags",
        "   T        remove tags   c  clear completed",
        "   f/1/2/3  filter        /  search (esc clears)",
        "   [ ] ←/→  switch list   u  undo   r  redo",
        "   ctrl-z   undo too (no suspend: q quits and saves)   s  sync now",
        "",
        " Input line: ⏎ confirm · esc cancel · ctrl-u clear · ctrl-w delete word",
        " q quits (changes are saved) · ? closes this help",
    ]

    private static func helpScreen(width: Int, height: Int) -> [String] {
        var lines = [" Todos ▸ Help", "", rule(width)]
        lines += helpText.prefix(height - 6)
        while lines.count < height - 3 { lines.append("") }
        lines.append(rule(width))
        lines.append(" Press any key to close help")
        return lines
    }

    private static func inputLine(_ state: AppState, width: Int) -> String? {
        guard let mode = state.ui.input else { return nil }
        let prompt: String
        switch mode {
        case .addItem: prompt = "New item"
        case .editItem: prompt = "Edit"
        case .addTag: prompt = "Tags"
        case .search: prompt = "Search"
        case .addList: prompt = "New list"
        case .renameList: prompt = "Rename list"
        }
        let head = " \(prompt): "
        let typed = text(mode == .search ? state.ui.searchText : state.ui.draft)
        return head + tail(of: typed, width: width - DisplayWidth.of(head) - 1) + "▏"
    }

    /// The end of `text` that fits in `width` columns (with a leading "…" when cut), so
    /// that the end being typed stays visible.
    static func tail(of text: String, width: Int) -> String {
        guard DisplayWidth.of(text) > width else { return text }
        var result = ""
        var used = 1
        for character in text.reversed() {
            let w = DisplayWidth.of(character)
            if used + w > width { break }
            result.insert(character, at: result.startIndex)
            used += w
        }
        return "…" + result
    }

    /// The status line: the status message, or a hint; `mark` (kept whole) at the right.
    private static func footer(_ state: AppState, status: String?, mark: String?, width: Int) -> String {
        let left = " " + (status ?? hint(state))
        guard let mark else { return left }
        let right = text(mark) + " "
        let room = width - DisplayWidth.of(right) - 1
        guard room >= 1 else { return DisplayWidth.truncate(right, toWidth: width) }
        return spread(DisplayWidth.truncate(left, toWidth: room), right, width: width)
    }

    private static func hint(_ state: AppState) -> String {
        if let mode = state.ui.input {
            // Over-long text stays in the line for editing; the limit is named while it is over.
            let typed = mode == .search ? state.ui.searchText : state.ui.draft
            if let excess = KeyMap.excess(mode, text: typed) { return "⚠ " + excess + " · ⏎ refuses it · esc cancels" }
            return "⏎ confirm · esc cancel"
        }
        switch state.ui.screen {
        case .items: return "a add · e edit · ␣ toggle · d delete · / search · f filter · ? help · q quit"
        case .lists: return "l/esc items · ? help · q quit"
        case .help: return ""
        }
    }
}
