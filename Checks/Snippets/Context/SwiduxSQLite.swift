// What SwiduxSQLite.md's example assumes besides the types it declares.
enum AppAction: Sendable {
    case refresh
}

struct AppEnvironment: Sendable {
    static let live = AppEnvironment()
}

struct AppReducer: SwiduxReducer {
    func reduce(state: inout AppState, action: AppAction, environment: AppEnvironment) -> Effect<AppAction>? {
        nil
    }
}
