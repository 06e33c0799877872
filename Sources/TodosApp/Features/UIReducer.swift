import Foundation

/// Navigation, filter, highlight and the input line.
struct UIReducer: SwiduxReducer {
    init() {}

    func reduce(state: inout AppState, action: UIAction, environment: AppEnvironment) -> Effect<AppAction>? {
        switch action {
        case let .showScreen(screen):
            if screen == .help, state.ui.screen != .help { state.ui.previousScreen = state.ui.screen }
            state.ui.screen = screen
            state.ui.input = nil
            state.ui.draft = ""
            if screen == .lists, let current = state.currentList,
               let index = state.lists.firstIndex(where: { $0.id == current.id }) {
                state.ui.listCursor = index
            }

        case .toggleHelp:
            if state.ui.screen == .help {
                state.ui.screen = state.ui.previousScreen == .help ? .items : state.ui.previousScreen
            } else {
                state.ui.previousScreen = state.ui.screen
                state.ui.screen = .help
                state.ui.input = nil
            }

        case let .setFilter(filter):
            guard filter != state.ui.filter else { return nil }
            state.ui.filter = filter
            return environment.status("Showing \(filter.rawValue) items")

        case .cycleFilter:
            state.ui.filter = state.ui.filter.next
            return environment.status("Showing \(state.ui.filter.rawValue) items")

        case let .moveCursor(delta):
            switch state.ui.screen {
            case .items:
                let visible = state.visibleIDs
                guard !visible.isEmpty else { return nil }
                let index = state.selectedIndex ?? 0
                let target = min(max(index + delta, 0), visible.count - 1)
                state.ui.selectedItemID = visible[target]
            case .lists:
                guard !state.lists.isEmpty else { return nil }
                state.ui.listCursor = min(max(state.ui.listCursor + delta, 0), state.lists.count - 1)
            case .help:
                break
            }

        case let .selectItem(id):
            state.ui.selectedItemID = id

        case let .beginInput(mode, draft):
            state.ui.input = mode
            if mode == .search {
                state.ui.draft = ""
            } else {
                state.ui.draft = draft
            }

        case let .draftChanged(text):
            // Text over a field's limit stays in the line so it can be shortened (the field
            // refuses it on ⏎ and its footer names the limit); only the line itself is bounded.
            if text.count > Limits.draft, text.count > state.ui.draft.count {
                return environment.event(.error("The input line holds at most \(Limits.draft) characters; nothing was added to it"))
            }
            state.ui.draft = text

        case let .notice(text):
            return environment.status(text)

        case let .warning(text):
            return environment.event(.error(text))

        case .endInput:
            state.ui.input = nil
            state.ui.draft = ""
        }
        return nil
    }
}
