#if canImport(SwiftUI)
import SwiftUI

extension Store {
    /// A binding that reads the state and writes by sending an action (a controlled
    /// component: the view never holds its own copy of the value).
    ///
    /// ```swift
    /// TextField("New to-do", text: store.binding(\.draft, send: TodoAction.setDraft))
    /// TextField("New to-do", text: store.binding(\.draft, send: { .setDraft(String($0.prefix(80))) }))
    /// ```
    ///
    /// Reading the binding observes the slice at `keyPath`, like `store.slice`. The key path
    /// and the closure must be `Sendable` (key path literals and enum cases are). The
    /// binding is safe on any thread (since iOS 18 SwiftUI may read one off the main thread):
    /// there it answers the value it last read on the main actor, and a write is sent on the
    /// main actor, in order.
    public func binding<Value: Sendable>(
        _ keyPath: KeyPath<State, Value> & Sendable,
        send action: @escaping @Sendable (Value) -> Action
    ) -> Binding<Value> {
        let accessors = StoreBindingAccessors(store: self, keyPath: keyPath, send: action)
        return Binding(get: accessors.get, set: accessors.set)
    }

    /// Sends an action inside `withAnimation(animation)`: the state changes it makes animate.
    ///
    /// ```swift
    /// Button("Add") { store.send(.add, animation: .default) }
    /// ```
    @discardableResult
    public func send(_ action: Action, animation: Animation?) -> StoreTask {
        withAnimation(animation) { send(action) }
    }

    /// Sends an action inside `withTransaction(transaction)`.
    ///
    /// ```swift
    /// store.send(.select(id), transaction: Transaction(animation: .snappy))
    /// ```
    @discardableResult
    public func send(_ action: Action, transaction: Transaction) -> StoreTask {
        withTransaction(transaction) { send(action) }
    }
}

extension View {
    /// Flushes `store`'s pending changes whenever the scene leaves the foreground
    /// (`scenePhase` becomes `.inactive` or `.background`), inside a background-task
    /// assertion (``Store/flushInBackgroundTask(_:)``) so that iOS lets it finish: a
    /// suspended app can be killed without notice, and a flush that returned is on disk.
    /// On macOS, also call `store.flushesOnTermination(timeout:)`: quitting does not
    /// change `scenePhase`.
    ///
    /// ```swift
    /// WindowGroup {
    ///     TodoListView(store: store)
    ///         .flushesOnBackground(store)
    /// }
    /// ```
    ///
    /// A failed flush is not lost: the persistence middleware logs it, reports it
    /// (`onError`, `errors`) and retries it.
    @MainActor
    public func flushesOnBackground<StoreState, StoreAction>(_ store: Store<StoreState, StoreAction>) -> some View {
        modifier(FlushOnScenePhase(store: store))
    }
}

/// The modifier of `View.flushesOnBackground(_:)`.
@MainActor
private struct FlushOnScenePhase<StoreState, StoreAction>: ViewModifier {
    @Environment(\.scenePhase) private var scenePhase
    let store: Store<StoreState, StoreAction>

    func body(content: Content) -> some View {
        content.onChange(of: scenePhase) { _, phase in
            guard phase != .active else { return }
            // Inside a background-task assertion, begun before the scene is suspended and
            // ended after the flush. Failures are logged, reported and retried by the
            // persistence middleware.
            store.flushInBackgroundTask(.system)
        }
    }
}
#endif
