import Foundation

/// Search as you type: the typed text shows at once, the query applies after a
/// debounce (cancelled and restarted by each keystroke).
struct SearchReducer: SwiduxReducer {
    /// The id of the in-flight debounced search.
    enum DebounceID: Hashable, Sendable { case search }

    init() {}

    func reduce(state: inout AppState, action: SearchAction, environment: AppEnvironment) -> Effect<AppAction>? {
        switch action {
        case let .textChanged(text):
            if text.count > Limits.name, text.count > state.ui.searchText.count {
                return environment.event(.error("Search is limited to \(Limits.name) characters"))
            }
            guard text != state.ui.searchText else { return nil }
            state.ui.searchText = text
            return Effect<AppAction>.send(.search(.apply(text)))
                .debounce(id: DebounceID.search, for: environment.searchDebounce, clock: environment.clock)

        case let .apply(text):
            state.ui.searchQuery = text
            return nil

        case .clear:
            state.ui.searchText = ""
            state.ui.searchQuery = ""
            if state.ui.input == .search { state.ui.input = nil }
            return .cancel(id: DebounceID.search)
        }
    }
}
