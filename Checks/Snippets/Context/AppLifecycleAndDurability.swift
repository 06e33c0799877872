import SwiftUI

// What AppLifecycleAndDurability.md's fragment assumes: an app's store and its root view.
struct AppState: Equatable {}
enum AppAction: Sendable {
    case refresh
}

struct ContentView: View {
    let store: Store<AppState, AppAction>
    var body: some View { EmptyView() }
}

struct SnippetContext {
    let store: Store<AppState, AppAction>
}
