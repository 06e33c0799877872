import SwiftUI

// What Performance.md's fragment assumes: a store of items and a row view.
struct Item: Identifiable, Equatable, Sendable {
    let id: Int
    var title: String
}

struct AppState: Equatable {
    var items = EntityStore<Item>()
}

enum AppAction: Sendable {
    case refresh
}

struct Row: View {
    let item: Item
    var body: some View { Text(item.title) }
}

struct SnippetContext {
    let store: Store<AppState, AppAction>
}
