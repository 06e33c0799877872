import Foundation

/// What a key press asks the app to do.
enum Command: Equatable, Sendable {
    case send(AppAction)
    case undo
    case redo
    case quit
    /// Retry sync now (after a failure, instead of waiting for the next retry; after a refused
    /// token, at all). The terminal UI performs it; elsewhere it does nothing.
    case syncNow
}

/// Maps key presses to commands, depending on the screen and input mode. Pure.
enum KeyMap {
    /// The commands for `key` in `state`. `makeID` supplies ids for created entities.
    static func commands(for key: KeyEvent, state: AppState, makeID: () -> UUID) -> [Command] {
        if key == .control("c") { return [.quit] }
        switch key {
        case .paste(let text): return paste(text, state: state, makeID: makeID)
        case .oversizedPaste(let bytes):
            return [.send(.ui(.warning("Paste refused: \(bytes) bytes, at most \(KeyDecoder.maxPaste) are taken")))]
        default: break
        }
        if let mode = state.ui.input { return input(key, mode: mode, state: state, makeID: makeID) }
        switch state.ui.screen {
        case .help:
            return key == .character("q") ? [.quit] : [.send(.ui(.toggleHelp))]
        case .lists:
            return listsScreen(key, state: state)
        case .items:
            return itemsScreen(key, state: state, makeID: makeID)
        }
    }

    private static func common(_ key: KeyEvent) -> [Command]? {
        switch key {
        case .character("q"): [.quit]
        case .character("?"), .character("h"): [.send(.ui(.toggleHelp))]
        case .character("u"), .control("z"): [.undo]
        case .character("r"), .control("r"), .control("y"): [.redo]
        case .character("j"), .down: [.send(.ui(.moveCursor(1)))]
        case .character("k"), .up: [.send(.ui(.moveCursor(-1)))]
        case .pageDown, .control("d"): [.send(.ui(.moveCursor(10)))]
        case .pageUp: [.send(.ui(.moveCursor(-10)))]
        case .character("g"), .home: [.send(.ui(.moveCursor(-Int(Int32.max))))]
        case .character("G"), .end: [.send(.ui(.moveCursor(Int(Int32.max))))]
        default: nil
        }
    }

    private static func itemsScreen(_ key: KeyEvent, state: AppState, makeID: () -> UUID) -> [Command] {
        if let commands = common(key) { return commands }
        let selected = state.selectedItem
        switch key {
        case .character("a"), .character("n"):
            return state.currentList == nil ? [] : [.send(.ui(.beginInput(.addItem)))]
        case .character("e"), .enter:
            guard let selected else { return [] }
            return [.send(.ui(.beginInput(.editItem(selected.id), draft: selected.title)))]
        case .character(" "), .character("x"):
            guard let selected else { return [] }
            return [.send(.items(.toggle(id: selected.id)))]
        case .character("d"), .delete:
            guard let selected else { return [] }
            return [.send(.items(.delete(id: selected.id)))]
        case .character("J"):
            guard let selected else { return [] }
            return [.send(.items(.move(id: selected.id, offset: 1)))]
        case .character("K"):
            guard let selected else { return [] }
            return [.send(.items(.move(id: selected.id, offset: -1)))]
        case .character("t"), .character("#"):
            guard let selected else { return [] }
            return [.send(.ui(.beginInput(.addTag(selected.id))))]
        case .character("T"):
            guard let selected else { return [] }
            return [.send(.tags(.clear(itemID: selected.id)))]
        case .character("f"), .tab:
            return [.send(.ui(.cycleFilter))]
        case .character("1"): return [.send(.ui(.setFilter(.all)))]
        case .character("2"): return [.send(.ui(.setFilter(.active)))]
        case .character("3"): return [.send(.ui(.setFilter(.completed)))]
        case .character("s"):
            return [.syncNow]
        case .character("c"):
            guard let list = state.currentList else { return [] }
            return [.send(.items(.clearCompleted(listID: list.id)))]
        case .character("/"):
            return [.send(.ui(.beginInput(.search)))]
        case .escape:
            return state.ui.searchText.isEmpty ? [] : [.send(.search(.clear))]
        case .character("l"):
            return [.send(.ui(.showScreen(.lists)))]
        case .character("]"), .right:
            return neighbourList(1, state: state)
        case .character("["), .left:
            return neighbourList(-1, state: state)
        default:
            return []
        }
    }

    private static func neighbourList(_ delta: Int, state: AppState) -> [Command] {
        guard let current = state.currentList, let index = state.lists.firstIndex(where: { $0.id == current.id }) else { return [] }
        let target = index + delta
        guard state.lists.indices.contains(target) else { return [] }
        return [.send(.lists(.select(id: state.lists[target].id)))]
    }

    private static func listsScreen(_ key: KeyEvent, state: AppState) -> [Command] {
        if let commands = common(key) { return commands }
        let cursor = state.lists.indices.contains(state.ui.listCursor) ? state.lists[state.ui.listCursor] : nil
        switch key {
        case .enter, .character("o"), .right:
            guard let cursor else { return [] }
            return [.send(.lists(.select(id: cursor.id))), .send(.ui(.showScreen(.items)))]
        case .character("a"), .character("n"):
            return [.send(.ui(.beginInput(.addList)))]
        case .character("e"):
            guard let cursor else { return [] }
            return [.send(.ui(.beginInput(.renameList(cursor.id), draft: cursor.name)))]
        case .character("d"), .delete:
            guard let cursor else { return [] }
            return [.send(.lists(.delete(id: cursor.id)))]
        case .escape, .character("l"), .left:
            return [.send(.ui(.showScreen(.items)))]
        default:
            return []
        }
    }

    private static func input(_ key: KeyEvent, mode: InputMode, state: AppState, makeID: () -> UUID) -> [Command] {
        let isSearch = mode == .search
        let text = isSearch ? state.ui.searchText : state.ui.draft
        func changed(_ new: String) -> [Command] {
            isSearch ? [.send(.search(.textChanged(new)))] : [.send(.ui(.draftChanged(new)))]
        }
        switch key {
        case .character(let c):
            return changed(text + String(c))
        case .backspace:
            return text.isEmpty ? [] : changed(String(text.dropLast()))
        case .control("u"):
            return changed("")
        case .control("w"):
            var words = text.split(separator: " ", omittingEmptySubsequences: false)
            if words.last == "" { words.removeLast() }
            if !words.isEmpty { words.removeLast() }
            return changed(words.joined(separator: " ") + (words.isEmpty ? "" : " "))
        case .escape:
            return isSearch ? [.send(.search(.clear))] : [.send(.ui(.endInput))]
        case .enter:
            // A text the field refuses stays in the line for editing, with the reason.
            if let refusal = refusal(mode, text: text, state: state) { return [.send(.ui(.warning(refusal)))] }
            // Close the input line first, so that the undo step of the change does not
            // bring the input line back.
            return [.send(.ui(.endInput))] + commit(mode, text: text, state: state, makeID: makeID)
        default:
            return []
        }
    }

    /// Why the field `mode` refuses `text` on ⏎, or `nil` when it takes it (or when there
    /// is nothing to do: an empty add line just closes).
    static func refusal(_ mode: InputMode, text: String, state: AppState) -> String? {
        switch mode {
        case .addItem:
            let (title, tags) = parseTitle(text)
            if title.isEmpty, tags.isEmpty { return nil }
            return ItemsReducer.refusal(title: title, tags: tags)
        case .editItem:
            return ItemsReducer.refusal(title: text, tags: [])
        case .addTag:
            for name in text.split(whereSeparator: { $0 == " " || $0 == "," }) {
                if case .failure(let error) = TagsReducer.validate(String(name)) { return error.description.capitalizedFirst }
            }
            return nil
        case .search:
            return nil
        case .addList:
            return ListsReducer.refusal(name: text, renaming: nil, state: state)
        case .renameList(let id):
            return ListsReducer.refusal(name: text, renaming: id, state: state)
        }
    }

    /// The limit `text` is over in the field `mode` ("a title is limited to 500 characters
    /// (this one has 600)"), shown under the input line while it is; `nil` when within.
    static func excess(_ mode: InputMode, text: String) -> String? {
        switch mode {
        case .addItem: Limits.excess(Limits.clean(parseTitle(text).title), max: Limits.title, what: "A title")
        case .editItem: Limits.excess(Limits.clean(text), max: Limits.title, what: "A title")
        case .addList, .renameList: Limits.excess(ListName.clean(text), max: Limits.name, what: "A list name")
        case .addTag, .search: nil
        }
    }

    private static func commit(_ mode: InputMode, text: String, state: AppState, makeID: () -> UUID) -> [Command] {
        switch mode {
        case .addItem:
            guard let list = state.currentList else { return [] }
            let (title, tags) = parseTitle(text)
            // Nothing typed: nothing to do. Tags alone: the reducer refuses and says why.
            if title.isEmpty, tags.isEmpty { return [] }
            return [.send(.items(.add(id: makeID(), listID: list.id, title: title, tags: tags)))]
        case .editItem(let id):
            return [.send(.items(.setTitle(id: id, title: text)))]
        case .addTag(let id):
            return text.split(whereSeparator: { $0 == " " || $0 == "," }).map {
                .send(.tags(.add(itemID: id, name: String($0), tagID: makeID())))
            }
        case .search:
            return [.send(.search(.apply(state.ui.searchText)))]
        case .addList:
            return [.send(.lists(.add(id: makeID(), name: text)))]
        case .renameList(let id):
            return [.send(.lists(.rename(id: id, name: text)))]
        }
    }

    /// Splits trailing `#tag` words off a typed title: "Buy milk #shop #today" →
    /// ("Buy milk", ["shop", "today"]).
    static func parseTitle(_ text: String) -> (title: String, tags: [String]) {
        var words = text.split(separator: " ").map(String.init)
        var tags: [String] = []
        while let last = words.last, last.count > 1, last.hasPrefix("#") {
            tags.insert(String(last.dropFirst()), at: 0)
            words.removeLast()
        }
        return (words.joined(separator: " "), tags)
    }
}
