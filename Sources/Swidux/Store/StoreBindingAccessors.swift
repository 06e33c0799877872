/// The two closures of a SwiftUI binding on a ``Store`` (`store.binding(_:send:)`): a
/// getter that reads the state and a setter that sends an action. They are `@Sendable` and
/// nonisolated, so they convert to whatever isolation `Binding(get:set:)` asks for, and
/// they enter the main actor with `MainActor.assumeIsolated` (SwiftUI reads and writes
/// bindings on the main thread; any other thread traps instead of racing). Kept apart from
/// SwiftUI so that Linux compiles and tests them.
struct StoreBindingAccessors<Value: Sendable>: Sendable {
    let get: @Sendable () -> Value
    let set: @Sendable (Value) -> Void

    init<State, Action>(
        store: Store<State, Action>,
        keyPath: KeyPath<State, Value> & Sendable,
        send action: @escaping @Sendable (Value) -> Action
    ) {
        get = { MainActor.assumeIsolated { store[dynamicMember: keyPath] } }
        set = { newValue in MainActor.assumeIsolated { _ = store.send(action(newValue)) } }
    }
}
