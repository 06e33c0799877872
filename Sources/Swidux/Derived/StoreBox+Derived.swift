// What reading a `Derived` value through a store needs of its box: registering reads of
// the inputs' key paths, and the state without observing all of it.

extension StoreBox: DerivedTracking {}

/// A box that can hand out its state without registering a read.
@MainActor
protocol UntrackedStateReading<State>: AnyObject {
    associatedtype State
    var untrackedState: State { get }
}

extension RootBox: UntrackedStateReading {
    var untrackedState: State { state }
}

extension ScopedBox: UntrackedStateReading {
    var untrackedState: State { parent.stateWithoutTracking[keyPath: path] }
}

extension StoreBox {
    /// The current state; observes nothing (the caller tracks what it reads).
    var stateWithoutTracking: State {
        guard let box = self as? any UntrackedStateReading<State> else { return currentState }
        return box.untrackedState
    }
}
