#if canImport(SwiftUI)
import SwiftUI

extension Store {
    /// A controlled-component binding (seed 002 rule 6): reads the state, writes by sending.
    ///
    /// ```swift
    /// TextField("Title", text: store.binding(\.draft.title, send: AppAction.setTitle))
    /// ```
    public func binding<Value>(
        _ keyPath: KeyPath<State, Value>,
        send action: @escaping (Value) -> Action
    ) -> Binding<Value> {
        Binding(
            get: { self[dynamicMember: keyPath] },
            set: { self.send(action($0)) }
        )
    }
}
#endif
