/// The dispatch contract: something actions are sent to.
///
/// ``Store`` conforms (its `send` returns an awaitable ``StoreTask``), and so does a
/// hand-written `AppStore` whose `send` returns nothing:
///
/// ```swift
/// @MainActor @Observable
/// final class AppStore: SwiduxDispatcher {
///     func send(_ action: AppAction) { ... }
/// }
/// ```
@MainActor
public protocol SwiduxDispatcher<Action> {
    /// The actions this dispatcher accepts.
    associatedtype Action
    /// What `send` returns: `Void` for a hand-written store, ``StoreTask`` for ``Store``.
    associatedtype SendResult = Void
    /// Sends `action`: it is reduced at once, on the main actor.
    @discardableResult
    func send(_ action: Action) -> SendResult
}
