// TEMPORARY: stands in for the core's Effect/SwiduxReducer until branch `main` lands.
// Delete this file after `git merge main`.
public protocol SwiduxReducer<State, Action, RootAction, Environment> {
    associatedtype State; associatedtype Action
    associatedtype RootAction; associatedtype Environment
    func reduce(state: inout State, action: Action, environment: Environment) -> Effect<RootAction>?
}
public typealias Send<Action> = @MainActor @Sendable (Action) -> Void
public struct Effect<Action>: Sendable {
    let operation: @Sendable (Send<Action>) async -> Void
    public init(_ operation: @escaping @Sendable (_ send: Send<Action>) async -> Void) { self.operation = operation }
    public static var none: Effect { Effect { _ in } }
    public static func send(_ action: Action) -> Effect where Action: Sendable { Effect { await $0(action) } }
    public static func cancel(id: some Hashable & Sendable) -> Effect { .none }
    public func debounce(id: some Hashable & Sendable, for duration: Duration, clock: any Clock<Duration> = ContinuousClock()) -> Effect { self }
}
