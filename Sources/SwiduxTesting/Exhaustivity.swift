/// How strictly a ``TestStore`` checks a test.
///
/// ```swift
/// let store = TestStore(initialState: AppState(), reducer: AppReducer(), environment: .test)
/// store.exhaustivity = .off
/// await store.send(.login) { $0.isLoggedIn = true }   // asserts only `isLoggedIn`
/// ```
public enum Exhaustivity: Sendable, Equatable {
    /// Every state change, every received action and every effect must be accounted for:
    /// the assertion closure describes the **whole** change, received actions are
    /// asserted in order, and no effect may still run at the end of the test.
    case on
    /// Assertions are partial: the closure's expectations are applied to the actual state,
    /// so only what it sets is checked. Unasserted received actions are skipped and effects
    /// may still run at the end of the test.
    case off
}
