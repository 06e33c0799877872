#if os(Linux) && !SWIDUX_THREAD_SANITIZER
import Synchronization
#else
import Foundation
#endif

/// A value behind a lock: the one lock of the package's modules and tests.
///
/// Synchronization's `Mutex` needs macOS 15 / iOS 18, above the package's floor, so on Apple
/// platforms the value sits behind an `NSLock`; Linux has no such floor and uses `Mutex`
/// (a futex word stored inline, no separate lock object). Both cost one uncontended atomic
/// pair per `withLock`, and `withLock` is inlinable so that callers in other modules
/// specialize it instead of going through generic metadata.
///
/// The thread-sanitized build (`-DSWIDUX_THREAD_SANITIZER`, in CI) takes the `NSLock` variant
/// on Linux too: a contended `Mutex` is handed from one thread to the next by the kernel (a
/// priority-inheriting futex, in the uninstrumented standard library), so the sanitizer sees
/// no ordering between the two holders and reports a race that is not there. `NSLock` is a
/// pthread mutex, which the sanitizer intercepts.
///
/// ```swift
/// let hits = LockedValue(0)
/// hits.withLock { $0 += 1 }
/// let seen = hits.withLock { $0 }
/// ```
///
/// Invariant: `body` runs with the lock held and is not reentrant (calling `withLock` of the
/// same value inside `body` deadlocks), so keep it short: no await, no call out of the type.
@usableFromInline
package final class LockedValue<Value>: @unchecked Sendable {
    #if os(Linux) && !SWIDUX_THREAD_SANITIZER
    /// `Mutex` hands its value out as `sending`, which a non-`Sendable` generic value cannot
    /// be; the value never leaves the lock except through `body`, as in the `NSLock` variant,
    /// so this wrapper only restates the class's own `@unchecked Sendable`.
    @usableFromInline
    struct Unchecked<Wrapped>: @unchecked Sendable {
        @usableFromInline var wrapped: Wrapped
        @inlinable init(_ wrapped: consuming Wrapped) { self.wrapped = wrapped }
    }

    @usableFromInline let mutex: Mutex<Unchecked<Value>>

    @usableFromInline
    package init(_ value: consuming Value) { mutex = Mutex(Unchecked(value)) }

    /// Runs `body` with the value, the lock held.
    @inlinable
    package func withLock<T, E: Error>(_ body: (inout Value) throws(E) -> T) throws(E) -> T {
        try mutex.withLock { (box: inout sending Unchecked<Value>) throws(E) -> sending Unchecked<T> in
            Unchecked(try body(&box.wrapped))
        }.wrapped
    }
    #else
    @usableFromInline let lock = NSLock()
    /// The value lives in its own allocation, not in a stored `var`: the lock already makes
    /// every access exclusive, and a class's `var` would add a dynamic exclusivity check per
    /// access, which the thread sanitizer records at the property's address; for an empty value
    /// (`LockedValue(())`, a plain lock) that address is the object's header, which every
    /// retain reads without the lock, and the sanitizer reported a race that is not there.
    @usableFromInline let storage: UnsafeMutablePointer<Value>

    @usableFromInline
    package init(_ value: consuming Value) {
        storage = .allocate(capacity: 1)
        storage.initialize(to: value)
    }

    deinit {
        storage.deinitialize(count: 1)
        storage.deallocate()
    }

    /// Runs `body` with the value, the lock held.
    @inlinable
    package func withLock<T, E: Error>(_ body: (inout Value) throws(E) -> T) throws(E) -> T {
        lock.lock()
        defer { lock.unlock() }
        return try body(&storage.pointee)
    }
    #endif
}
