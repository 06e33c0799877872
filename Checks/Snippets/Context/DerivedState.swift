import SwiftUI

// What DerivedState.md's fragments assume: items in lists, a filter, a selection, a row.
struct Item: Identifiable, Equatable, Sendable {
    let id: UUID
    var listID: UUID
    var title: String
    var isDone = false
}

struct Filter: Equatable, Sendable {
    var showsDone = true
    func includes(_ item: Item) -> Bool { showsDone || !item.isDone }
}

struct UIState: Equatable, Sendable {
    var filter = Filter()
    var selectedID: Item.ID?
    var listID = UUID()
}

struct AppState: Equatable, Sendable {
    var items = EntityStore<Item>()
    var ui = UIState()
}

struct ListAndDone: Hashable, Sendable {
    let listID: UUID
    let isDone: Bool
    init(_ listID: UUID, _ isDone: Bool) {
        self.listID = listID
        self.isDone = isDone
    }
}

enum AppAction: Sendable {
    case selectFirst
}

struct ItemRow: View {
    let item: Item
    var body: some View { Text(item.title) }
}

struct SnippetContext {
    let store: Store<AppState, AppAction>
}

typealias SnippetState = AppState
typealias SnippetAction = AppAction
typealias SnippetEnvironment = Void
typealias SnippetEffectAction = AppAction
