import Foundation

/// The root reducer: dispatches each action to its feature reducer.
struct AppReducer: SwiduxReducer {
    init() {}

    func reduce(state: inout AppState, action: AppAction, environment: AppEnvironment) -> Effect<AppAction>? {
        switch action {
        case let .lists(action): ListsReducer().reduce(state: &state, action: action, environment: environment)
        case let .items(action): ItemsReducer().reduce(state: &state, action: action, environment: environment)
        case let .tags(action): TagsReducer().reduce(state: &state, action: action, environment: environment)
        case let .search(action): SearchReducer().reduce(state: &state, action: action, environment: environment)
        case let .ui(action): UIReducer().reduce(state: &state, action: action, environment: environment)
        }
    }
}
