/// The function an effect uses to feed actions back into the store.
///
/// It runs on the main actor; from an effect's async context call it with `await`:
///
/// ```swift
/// Effect<AppAction> { send in
///     let items = try? await api.fetch()
///     await send(.itemsLoaded(items ?? []))
/// }
/// ```
///
/// Apps usually specialize it once: `typealias Send = Swidux.Send<AppAction>`.
public typealias Send<Action> = @MainActor @Sendable (Action) -> Void
