import Logging
import Observation

/// A main-actor, observable store: it holds the state, runs the reducer for every action,
/// runs the effects the reducer returns, and plugs in middleware (persistence, undo, logging).
///
/// ```swift
/// let store = Store(
///     initialState: AppState(),
///     reducer: AppReducer(),
///     environment: AppEnvironment.live,
///     persistence: PersistenceMiddleware(writers: [
///         StateWriter(keyPath: \.items) { writes, deletions in try await db.save(writes, deleting: deletions) },
///     ])
/// )
/// store.send(.items(.create("Milk")))
/// let names = store.items.values.map(\.name)   // observed slice by slice
/// ```
///
/// Reads through dynamic members (`store.ui`) are observed **slice by slice**: a SwiftUI
/// view or `withObservationTracking` that read `store.ui` is not invalidated by an action
/// that changes only `store.items`, and nothing is notified when an action changes nothing.
/// ``EntityStore`` slices are observed **row by row** (see ``ObservedEntities``):
/// `store.items[id]` observes that entity only, `store.items.ids` and `.count` membership
/// and order, `.values` and iteration the whole slice.
///
/// Observed slices are compared by fingerprint (``EntityStore`` and other
/// ``ChangeFingerprinting`` values, O(1)), with `==` (`Equatable` values), or structurally
/// when they are not `Equatable`: fields, elements, optionals and enum cases down to
/// `Equatable` leaves, class instances by identity; only closures cannot be compared and
/// count as changed. Observing a large plain array costs a copy of it per change, so prefer
/// ``EntityStore`` for large collections.
///
/// Like `withObservationTracking`, a read is observed until the next change it is notified
/// of; a new read observes again. Rows of entity stores are found through the entity
/// store's log of changed ids, so the cost of a dispatch is proportional to what it changed,
/// not to the rows a UI has read. Dispatch does not copy the state: a reducer mutates it in
/// place.
@MainActor
@dynamicMemberLookup
public final class Store<State, Action>: SwiduxDispatcher, Observable {
    let box: any StoreBox<State, Action>

    /// Creates a store.
    ///
    /// - Parameters:
    ///   - initialState: the state the store starts with (hydrated entity stores record nothing).
    ///   - reducer: the root reducer; it runs on the main actor for every action.
    ///   - environment: the dependencies handed to the reducer (services, clocks, ids).
    ///   - middleware: hooks around every reduce, in order (e.g. ``LoggingMiddleware``).
    ///   - persistence: drains ``EntityStore`` change logs after every reduce and persists them.
    ///   - undo: enables ``undo()`` / ``redo()``. With no part named, it records the entity
    ///     stores `persistence` writes (only a store without persistence keeps whole states).
    ///   - undoPolicy: classifies each action for undo (default: the action's
    ///     ``UndoableAction/undoPolicy``, else `.record`).
    ///   - logger: where the store logs dispatch-loop warnings and unhandled effect errors.
    ///   - onUnexpectedError: receives errors thrown by effects that have no `catch` handler
    ///     (default: logged). `CancellationError` never reaches it.
    public init<R: SwiduxReducer>(
        initialState: State,
        reducer: R,
        environment: R.Environment,
        middleware: [any Middleware<State, Action>] = [],
        persistence: PersistenceMiddleware<State>? = nil,
        undo: UndoMiddleware<State>? = nil,
        undoPolicy: ((Action) -> UndoPolicy)? = nil,
        logger: Logger = Logger(label: "swidux.store"),
        onUnexpectedError: (@MainActor (any Error) -> Void)? = nil
    ) where R.State == State, R.Action == Action, R.RootAction == Action {
        let root = RootBox(
            initialState: initialState, reducer: reducer, environment: environment,
            middleware: middleware, persistence: persistence, undo: undo, undoPolicy: undoPolicy,
            logger: logger, onUnexpectedError: onUnexpectedError
        )
        self.box = root
    }

    init(box: any StoreBox<State, Action>) {
        self.box = box
    }

    /// The whole state. Reading it observes every slice; prefer `store.slice` reads in views.
    public var state: State { box.currentState }

    /// Reads a slice of the state, observed at the granularity of that key path.
    public subscript<Value>(dynamicMember keyPath: KeyPath<State, Value>) -> Value {
        box.read(keyPath)
    }

    /// Reads an ``EntityStore`` slice as an ``ObservedEntities`` view, observed at the grain
    /// of each read: `store.items[id]` observes that entity only; `ids`, `count`, `isEmpty`
    /// and `contains(_:)` observe membership and order; `values` and iteration observe the
    /// whole slice.
    ///
    /// ```swift
    /// ForEach(store.items.ids, id: \.self) { id in
    ///     ItemRow(item: store.items[id])   // notified only when this item changes
    /// }
    /// let all: EntityStore<Item> = store.items   // the entity store itself: the whole slice
    /// ```
    public subscript<Entity>(dynamicMember keyPath: KeyPath<State, EntityStore<Entity>>) -> ObservedEntities<Entity> {
        box.observedEntities(keyPath)
    }

    /// Sends an action: the reducer runs now, on the main actor; its effect starts.
    ///
    /// Sent while the store is reducing (from a middleware hook, or an observer being
    /// notified), the action is queued instead and reduced after the current send finished,
    /// in the order sent; it never runs inside another action's reduce.
    /// - Returns: a handle to await (`finish()`) or `cancel()` the action's effects,
    ///   including the effects of its `.send` follow-ups and of the actions its effects
    ///   send, recursively (see ``StoreTask``).
    @discardableResult
    public func send(_ action: Action) -> StoreTask {
        box.dispatch(action)
    }

    /// A store for a child feature: reads `state` of this store and sends through `embed`.
    ///
    /// ```swift
    /// CounterView(store: store.scope(state: \.counter, embed: AppAction.counter))
    /// ```
    ///
    /// Lifetime: effects live while any store that can receive their actions lives. A scoped
    /// store keeps its root's state, reducer and effects alive; they are cancelled when the
    /// last store (the root or any scoped store of it) is released.
    ///
    /// Compose the child's reducer at the same key path with
    /// ``SwiduxReducer/lifted(state:extract:embed:environment:)``: its cancel ids are then
    /// namespaced by that path, so two instances of one feature do not cancel each other's
    /// effects (see ``Effect/scoped(_:)``).
    public func scope<ChildState, ChildAction>(
        state: KeyPath<State, ChildState>,
        embed: @escaping (ChildAction) -> Action
    ) -> Store<ChildState, ChildAction> {
        // Opened: the scoped box holds its parent by its own type, not as an existential.
        func scoped<Parent: StoreBox>(_ parent: Parent) -> any StoreBox<ChildState, ChildAction>
        where Parent.State == State, Parent.Action == Action {
            ScopedBox(parent: parent, path: state, embed: embed)
        }
        return Store<ChildState, ChildAction>(box: scoped(box))
    }

    /// The former spelling of ``scope(state:embed:)``.
    @available(*, deprecated, renamed: "scope(state:embed:)")
    public func scope<ChildState, ChildAction>(
        state: KeyPath<State, ChildState>,
        action: @escaping (ChildAction) -> Action
    ) -> Store<ChildState, ChildAction> {
        scope(state: state, embed: action)
    }

    /// `true` when ``undo()`` would change the state. Observable.
    public var canUndo: Bool { box.root.trackUndoStatus(); return box.root.canUndo }
    /// `true` when ``redo()`` would change the state. Observable.
    public var canRedo: Bool { box.root.trackUndoStatus(); return box.root.canRedo }

    /// Restores the state before the last undoable action; persisted like any change.
    public func undo() { box.root.undo() }
    /// Re-applies the last undone step; persisted like any change.
    public func redo() { box.root.redo() }

    /// Writes every pending change now and returns when it is durable (see ``PersistenceMiddleware/flush()``).
    public func flush() async throws { try await box.root.flush() }

    /// The number of effect tasks still running (diagnostics and tests).
    public var runningEffectCount: Int { box.root.runningEffectCount }
}
