/// A store's middleware hooks around a reduce, each composed into one closure when the store
/// is made.
///
/// Walking an array of `any Middleware<State, Action>` in the store's generic code looks the
/// parameterized existential's type metadata up at run time, on every send (about 1,100
/// instructions for the two walks, a third of a plain send); calling a closure looks nothing
/// up.
@MainActor
struct MiddlewareHooks<State, Action> {
    /// Every middleware's `beforeReduce(state:action:source:)`, in order.
    let beforeReduce: @MainActor (State, Action, ActionSource) -> Void
    /// Every middleware's `afterReduce(state:action:)`, in order, each on a copy of the state
    /// that is written back before the next hook runs: no access to the state is held while a
    /// hook runs, so that it may read the store (and see the current state) or send (queued).
    let afterReduce: @MainActor (UnsafeMutablePointer<State>, Action) -> Void

    init(_ middleware: [any Middleware<State, Action>]) {
        var before: @MainActor (State, Action, ActionSource) -> Void = { _, _, _ in }
        var after: @MainActor (UnsafeMutablePointer<State>, Action) -> Void = { _, _ in }
        for hook in middleware {
            let previousBefore = before, previousAfter = after
            before = { state, action, source in
                previousBefore(state, action, source)
                hook.beforeReduce(state: state, action: action, source: source)
            }
            after = { pointer, action in
                previousAfter(pointer, action)
                var next = pointer.pointee
                hook.afterReduce(state: &next, action: action)
                pointer.pointee = next
            }
        }
        beforeReduce = before
        afterReduce = after
    }
}
