/// What a running effect can do: send actions, report errors, run a nested effect to completion.
/// All of it is bound to the cancellation scope the effect runs in.
struct EffectContext<Action>: Sendable {
    let send: Send<Action>
    let reportError: @MainActor @Sendable (any Error) -> Void
    let run: @MainActor @Sendable (Effect<Action>) async -> Void
    let isCancelled: @MainActor @Sendable () -> Bool

    func map<Parent>(_ transform: @escaping @Sendable (Parent) -> Action) -> EffectContext<Parent> {
        EffectContext<Parent>(
            send: { parent in self.send(transform(parent)) },
            reportError: reportError,
            run: { parentEffect in await self.run(parentEffect.map(transform)) },
            isCancelled: isCancelled
        )
    }
}
