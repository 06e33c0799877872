import Foundation

/// A value derived from parts of the state by a pure function, recomputed only when one of
/// those parts changed: the place for computed properties of the state.
///
/// Declare it once, from its inputs (key paths into the state) and the function of them:
///
/// ```swift
/// extension AppState {
///     static let visibleItems = Derived(\AppState.items, \.filter) { items, filter in
///         items.filter { filter.includes($0) }
///     }
/// }
///
/// let visible = AppState.visibleItems(state)   // in a reducer, a test, anywhere
/// let shown = store[AppState.visibleItems]      // in a view: observes `items` and `filter` only
/// ```
///
/// Reading it compares the inputs with those of the last computation, in O(1) for an
/// ``EntityStore`` (or any ``ChangeFingerprinting`` value: its fingerprint) and with `==`
/// for other `Equatable` values (structs holding entity stores compare those by fingerprint,
/// values that are not `Equatable` are compared structurally, as the ``Store`` compares the
/// slices it observes). When all are unchanged, the remembered value is returned without
/// calling the function; otherwise the function runs once and its result is remembered.
/// Through a ``Store`` (`store[derived]`) the read observes the inputs only, so a view that
/// shows a derived list is not invalidated by an action that changed none of them.
///
/// The memo lives in the declaration (one per `Derived` instance, usually a `static let`):
/// it remembers the last inputs and result only. It keeps fingerprints of entity-store
/// inputs, not the entity stores, so it neither keeps old states alive nor makes the next
/// in-place change of the state copy an entity store. Other inputs are kept by value (so keep
/// them small: a filter, an id, a query). Reads from several threads are safe: the memo is
/// guarded by a lock, and the function runs outside it (two threads that miss at once may
/// both compute; each result is correct). Reading with two different states in alternation
/// (two stores, or a test next to the app) recomputes each time: correct, not memoized.
///
/// The function must be pure: it gets the inputs only, and the result must depend on
/// nothing else.
public final class Derived<State, Value> {
    /// The inputs, in declaration order.
    let inputs: [DerivedInput<State>]
    private let compute: (State) -> Value
    private struct Memo {
        /// What the last computation saw (one entry per input) and its result.
        var last: (seen: [ChangeDetector.Snapshot], value: Value)?
        /// How many times the function ran (tests, diagnostics).
        var computations = 0
    }
    private let memo = LockedValue(Memo())

    /// Declares a derived value from key paths into the state and a pure function of the
    /// values at those key paths.
    ///
    /// ```swift
    /// static let counts = Derived(\AppState.items) { items in
    ///     (total: items.count, done: items.filter(\.isDone).count)
    /// }
    /// ```
    ///
    /// - Parameters:
    ///   - input: key paths to the values the function reads, one argument each.
    ///   - compute: the function; it runs when a read finds an input changed.
    public init<each Input>(
        _ input: repeat KeyPath<State, each Input>,
        compute: @escaping @Sendable (repeat each Input) -> Value
    ) {
        var inputs: [DerivedInput<State>] = []
        for path in repeat each input { inputs.append(DerivedInput(path)) }
        self.inputs = inputs
        self.compute = { state in compute(repeat state[keyPath: each input]) }
    }

    /// The value for `state`: the remembered one if no input changed since the last
    /// computation, else computed now (and remembered).
    ///
    /// ```swift
    /// let visible = AppState.visibleItems(state)
    /// ```
    ///
    /// - Complexity: O(inputs) when no input changed (O(1) per entity store input).
    public func callAsFunction(_ state: State) -> Value {
        let remembered = memo.withLock { memo -> Value? in
            guard let last = memo.last, !changed(since: last.seen, in: state) else { return nil }
            return last.value
        }
        if let remembered { return remembered }
        // Remember the inputs before computing: what the result was computed from.
        let seen = inputs.map { $0.snapshot(state) }
        let value = compute(state)
        memo.withLock { memo in
            memo.last = (seen, value)
            memo.computations += 1
        }
        return value
    }

    /// How many times the function has run since this value was declared. For tests:
    ///
    /// ```swift
    /// _ = AppState.visibleItems(state)
    /// #expect(AppState.visibleItems.computationCount == 1)
    /// ```
    public var computationCount: Int {
        memo.withLock { $0.computations }
    }

    /// Forgets the remembered result (releases it); the next read computes.
    public func reset() {
        memo.withLock { $0.last = nil }
    }

    private func changed(since seen: [ChangeDetector.Snapshot], in state: State) -> Bool {
        for (input, snapshot) in zip(inputs, seen) where input.hasChanged(snapshot, in: state) { return true }
        return false
    }
}

/// The memo is only touched under its lock; the function and the key paths are immutable.
extension Derived: @unchecked Sendable where State: Sendable, Value: Sendable {}

/// One input of a ``Derived`` value: a key path and how its values are compared (decided
/// from the value read, as the store's observation does). Key paths are immutable; the
/// strategy is guarded by a lock.
final class DerivedInput<State>: @unchecked Sendable {
    /// The strategy for the dynamic type last read (an existential input may come to
    /// hold values of another type).
    private let strategy = LockedValue<(type: ObjectIdentifier, strategy: ChangeDetector.Strategy)?>(nil)
    /// The value at the key path.
    let read: (State) -> Any
    /// Registers a read of the key path with a store.
    let track: @MainActor (any DerivedTracking<State>) -> Void

    init<Value>(_ path: KeyPath<State, Value>) {
        // Key paths are immutable (the type is `@unchecked Sendable` for that reason).
        nonisolated(unsafe) let path = path
        read = { $0[keyPath: path] }
        track = { $0.track(path) }
    }

    func snapshot(_ state: State) -> ChangeDetector.Snapshot {
        let value = read(state)
        return ChangeDetector.snapshot(value, strategy: strategy(for: value))
    }

    func hasChanged(_ snapshot: ChangeDetector.Snapshot, in state: State) -> Bool {
        ChangeDetector.hasChanged(snapshot, to: read(state))
    }

    private func strategy(for value: Any) -> ChangeDetector.Strategy {
        strategy.withLock { strategy in
            let type = ObjectIdentifier(Swift.type(of: value))
            if let strategy, strategy.type == type { return strategy.strategy }
            let decided = ChangeDetector.strategy(for: value)
            strategy = (type, decided)
            return decided
        }
    }
}

/// What can register reads of key paths of `State` (a store's box).
@MainActor
protocol DerivedTracking<State> {
    associatedtype State
    func track<Value>(_ keyPath: KeyPath<State, Value>)
}
