import SwiftUI

// What SwiftUIIntegration.md's fragments assume: the README's store, a view's scene phase.
struct SnippetContext {
    let store: Store<TodoState, TodoAction>
    let scenePhase: ScenePhase
}
