/// Asynchronous work returned by a reducer, whose results come back as actions.
///
/// ```swift
/// case .searchChanged(let query):
///     state.query = query
///     return .run { send in
///         let results = try await environment.search(query)
///         await send(.searchResponse(results))
///     }
///     .debounce(id: SearchID(), for: .milliseconds(300), clock: environment.clock)
/// ```
///
/// Semantics the store guarantees:
/// - A cancelled effect delivers **no** further actions, even if its work finishes later.
/// - Effects live while any store that can receive their actions (the root store or a
///   scoped store of it) lives; releasing the last one cancels them.
/// - `CancellationError` is silent; any other error goes to the `catch` handler, else to the
///   store's `onUnexpectedError`.
/// - Effects run off the main actor; `send` hops back to it.
public struct Effect<Action>: @unchecked Sendable {
    indirect enum Operation {
        case none
        case send(Action)
        case run(TaskPriority?, @Sendable (EffectContext<Action>) async -> Void)
        case cancel(EffectID)
        case cancellable(EffectID, cancelInFlight: Bool, Effect<Action>)
        case merge([Effect<Action>])
        case concatenate([Effect<Action>])
        /// Built by the runner at the moment it starts the effect (a debounce window opens then).
        case deferred(@Sendable () -> Effect<Action>)
        /// Runs on the main actor after the store's earlier emissions, unless cancelled first.
        case emit(@Sendable () -> Void)
        /// Cancel ids inside are namespaced by this scope (see ``Effect/scoped(_:)``).
        case scoped(AnyHashable, Effect<Action>)
    }

    let operation: Operation

    init(operation: Operation) { self.operation = operation }

    /// An effect that does nothing.
    public static var none: Effect { Effect(operation: .none) }

    /// The Swidux form: an async operation that may send any number of actions.
    ///
    /// ```swift
    /// return Effect { send in await send(.tick) }
    /// ```
    public init(_ operation: @escaping @Sendable (_ send: Send<Action>) async -> Void) {
        self.init(operation: .run(nil, { context in await operation(context.send) }))
    }

    /// Runs a throwing operation that may send any number of actions.
    ///
    /// A thrown error goes to `handler` if given, else to the store's `onUnexpectedError`.
    /// `CancellationError` and errors thrown after cancellation are silent.
    ///
    /// ```swift
    /// return .run { send in
    ///     await send(.loaded(try await api.load()))
    /// } catch: { error, send in
    ///     await send(.failed(error.localizedDescription))
    /// }
    /// ```
    public static func run(
        priority: TaskPriority? = nil,
        _ operation: @escaping @Sendable (_ send: Send<Action>) async throws -> Void,
        catch handler: (@Sendable (any Error, Send<Action>) async -> Void)? = nil
    ) -> Effect {
        Effect(operation: .run(priority, { context in
            do {
                try await operation(context.send)
            } catch is CancellationError {
                return
            } catch {
                if await context.isCancelled() || Task.isCancelled { return }
                if let handler {
                    await handler(error, context.send)
                } else {
                    await context.reportError(error)
                }
            }
        }))
    }

    /// The single-action form: an operation that returns exactly one action.
    ///
    /// ```swift
    /// return .run { .incrementResponse(.success(try await service.increment())) }
    /// ```
    public static func run(_ operation: @escaping @Sendable () async throws -> Action) -> Effect {
        .run { send in
            let action = try await operation()
            await send(action)
        }
    }

    /// The single-action form of a cancellable request: starting it again with the same `id`
    /// cancels the one in flight, whose late response is dropped.
    ///
    /// ```swift
    /// return .cancellable(id: SearchID()) { .results(try await api.search(query)) }
    /// ```
    public static func cancellable(
        id: some Hashable & Sendable,
        _ operation: @escaping @Sendable () async throws -> Action
    ) -> Effect {
        Effect.run(operation).cancellable(id: id, cancelInFlight: true)
    }

    /// Sends `action` immediately, after the current reduce, before any other work.
    ///
    /// The follow-up belongs to the dispatch that returned it: the ``StoreTask`` of the
    /// original send also covers the effects the follow-up starts (recursively), so
    /// `finish()` waits for them and `cancel()` stops them.
    ///
    /// ```swift
    /// case .refreshTapped: return .send(.load)
    /// ```
    public static func send(_ action: Action) -> Effect {
        Effect(operation: .send(action))
    }

    /// Cancels every in-flight effect marked with `id` in the same scope (see
    /// ``scoped(_:)``; ``GlobalCancelID`` for any scope); they deliver no further actions.
    ///
    /// ```swift
    /// case .stopTimer: return .cancel(id: CancelID.timer)
    /// ```
    public static func cancel(id: some Hashable & Sendable) -> Effect {
        Effect(operation: .cancel(EffectID(id)))
    }

    /// Marks this effect with `id` so that `.cancel(id:)` can stop it. With `cancelInFlight`,
    /// starting it cancels any effect already running under the same id, except the ones it
    /// runs inside (a `.debounce(id:)` with the same id). Ids are namespaced by the reducer
    /// scope the effect starts in (see ``scoped(_:)``).
    ///
    /// ```swift
    /// return .run { send in for await tick in environment.ticks { await send(.tick(tick)) } }
    ///     .cancellable(id: CancelID.timer)
    /// ```
    public func cancellable(id: some Hashable & Sendable, cancelInFlight: Bool = false) -> Effect {
        Effect(operation: .cancellable(EffectID(id), cancelInFlight: cancelInFlight, self))
    }

    /// Waits `duration` on `clock` before running this effect; starting another effect with
    /// the same `id` within that time cancels this one. Pass a test clock to control time.
    ///
    /// The window opens when the store starts the effect (the deadline is fixed then,
    /// synchronously, so it does not depend on when the effect's task gets to run): an effect
    /// value kept and returned again waits again, and inside `concatenate`
    /// the window opens when the previous member finished.
    ///
    /// The debounced effect may carry the same id itself ("cancel the stale request, debounce
    /// the new one"): its `cancelInFlight` does not cancel the debounce it runs in.
    ///
    /// ```swift
    /// return .cancellable(id: SearchID()) { .results(try await api.search(query)) }
    ///     .debounce(id: SearchID(), for: .milliseconds(300), clock: environment.clock)
    /// ```
    public func debounce(
        id: some Hashable & Sendable,
        for duration: Duration,
        clock: any Clock<Duration> = ContinuousClock()
    ) -> Effect {
        let inner = self
        return Effect(operation: .deferred({
            // Evaluated by the runner when it starts this effect: the window opens now.
            let deadline = Deadline(after: duration, on: clock)
            return Effect(operation: .run(nil, { context in
                do {
                    try await deadline.sleep()
                } catch {
                    return
                }
                if Task.isCancelled { return }
                await context.run(inner)
            }))
        }))
        .cancellable(id: id, cancelInFlight: true)
    }

    /// Runs the effects concurrently.
    public static func merge(_ effects: Effect...) -> Effect { merge(effects) }

    /// Runs the effects concurrently.
    public static func merge(_ effects: some Sequence<Effect>) -> Effect {
        Effect(operation: .merge(Array(effects)))
    }

    /// Runs the effects one after the other, each to completion.
    public static func concatenate(_ effects: Effect...) -> Effect { concatenate(effects) }

    /// Runs the effects one after the other, each to completion.
    public static func concatenate(_ effects: some Sequence<Effect>) -> Effect {
        Effect(operation: .concatenate(Array(effects)))
    }

    /// Lifts a child effect into a parent's action type, to compose a feature's reducer.
    ///
    /// ```swift
    /// return counterReducer.reduce(state: &state.counter, action: a, environment: env)?
    ///     .map(AppAction.counter)
    /// ```
    public func map<T>(_ transform: @escaping @Sendable (Action) -> T) -> Effect<T> {
        switch operation {
        case .none:
            return .none
        case .send(let action):
            return .send(transform(action))
        case .run(let priority, let body):
            return Effect<T>(operation: .run(priority, { context in await body(context.map(transform)) }))
        case .cancel(let id):
            return Effect<T>(operation: .cancel(id))
        case .cancellable(let id, let cancelInFlight, let inner):
            return Effect<T>(operation: .cancellable(id, cancelInFlight: cancelInFlight, inner.map(transform)))
        case .merge(let effects):
            return Effect<T>(operation: .merge(effects.map { $0.map(transform) }))
        case .concatenate(let effects):
            return Effect<T>(operation: .concatenate(effects.map { $0.map(transform) }))
        case .deferred(let make):
            return Effect<T>(operation: .deferred({ make().map(transform) }))
        case .emit(let deliver):
            return Effect<T>(operation: .emit(deliver))
        case .scoped(let scope, let inner):
            return Effect<T>(operation: .scoped(scope, inner.map(transform)))
        }
    }

    /// `true` for `.none` and combinations of nothing but `.none`.
    public var isNone: Bool {
        switch operation {
        case .none: return true
        case .merge(let effects), .concatenate(let effects): return effects.allSatisfy(\.isNone)
        case .scoped(_, let inner): return inner.isNone
        default: return false
        }
    }
}

extension Effect {
    /// Emits `event` on `channel` (a one-shot event such as navigation), outside state.
    ///
    /// The events of one store are emitted in the order the store started their effects
    /// (dispatch order), each on the main actor after the previous one. An emit whose effect
    /// was cancelled before its turn (``StoreTask/cancel()``, ``cancel(id:)``, a cancelled
    /// `concatenate`) emits nothing.
    ///
    /// ```swift
    /// case .userTapped(let id):
    ///     return .emit(.navigate(id), on: environment.events)
    /// ```
    public static func emit<Event: Sendable>(_ event: Event, on channel: EventChannel<Event>) -> Effect {
        Effect(operation: .emit({ channel.emit(event) }))
    }
}
