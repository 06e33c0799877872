import Foundation

/// The two closures of a SwiftUI binding on a ``Store`` (`store.binding(_:send:)`): a
/// getter that reads the state and a setter that sends an action. Kept apart from SwiftUI so
/// that Linux compiles and tests them.
///
/// They are `@Sendable` and nonisolated, so they convert to whatever isolation
/// `Binding(get:set:)` asks for, and they are safe on any thread: since iOS 18 SwiftUI may
/// call a binding's closures off the main thread, where `MainActor.assumeIsolated` would
/// trap. On the main queue (the main actor's) they read and send on the main actor. Elsewhere the getter
/// returns the value the binding last read on the main actor (the state itself is the main
/// actor's), and the setter sends on the main actor asynchronously, in the order of the
/// writes.
struct StoreBindingAccessors<Value: Sendable>: Sendable {
    let get: @Sendable () -> Value
    let set: @Sendable (Value) -> Void

    @MainActor
    init<State, Action>(
        store: Store<State, Action>,
        keyPath: KeyPath<State, Value> & Sendable,
        send action: @escaping @Sendable (Value) -> Action
    ) {
        let lastRead = LastReadValue(store[dynamicMember: keyPath])
        MainQueue.mark()
        get = {
            guard MainQueue.isCurrent else { return lastRead.value }
            return MainActor.assumeIsolated {
                let value = store[dynamicMember: keyPath]
                lastRead.value = value
                return value
            }
        }
        set = { newValue in
            guard MainQueue.isCurrent else {
                Task { @MainActor in
                    _ = store.send(action(newValue))
                    lastRead.value = store[dynamicMember: keyPath]
                }
                return
            }
            MainActor.assumeIsolated {
                _ = store.send(action(newValue))
                lastRead.value = store[dynamicMember: keyPath]
            }
        }
    }
}

/// Tells whether the caller runs on the main queue, which runs the main actor: the main
/// thread, or (on Linux, after `dispatch_main()`) the thread that serves the main queue.
private enum MainQueue {
    /// The key set on `DispatchQueue.main` only; used for its identity, never mutated.
    private final class Key: @unchecked Sendable {
        let key = DispatchSpecificKey<Bool>()
    }
    private static let key = Key()
    private static let marked: Bool = {
        DispatchQueue.main.setSpecific(key: key.key, value: true)
        return true
    }()

    /// Marks the main queue (once; from the main actor).
    static func mark() { _ = marked }

    static var isCurrent: Bool {
        Thread.isMainThread || DispatchQueue.getSpecific(key: key.key) == true
    }
}

/// The value a binding last read on the main actor, for readers on other threads.
private final class LastReadValue<Value: Sendable>: Sendable {
    private let stored: LockedValue<Value>

    init(_ value: Value) { stored = LockedValue(value) }

    var value: Value {
        get { stored.withLock { $0 } }
        set { stored.withLock { $0 = newValue } }
    }
}
