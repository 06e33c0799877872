// What GettingStarted.md's fragments assume: a store, the environment, a file, a router.
struct SnippetContext {
    let store: Store<AppState, AppAction>
    let environment: AppEnvironment
    let url: URL
    func route(_ event: AppEvent) {}
}

typealias SnippetState = AppState
typealias SnippetAction = AppAction
typealias SnippetEnvironment = AppEnvironment
typealias SnippetEffectAction = AppAction
