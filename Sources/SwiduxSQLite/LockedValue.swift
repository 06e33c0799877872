import Foundation

/// A value behind a lock, for the few mutable values of `Sendable` classes; shared by the
/// package's modules (Synchronization's `Mutex` needs macOS 15, above the package's floor).
package final class LockedValue<Value>: @unchecked Sendable {
    private let lock = NSLock()
    private var value: Value

    package init(_ value: Value) { self.value = value }

    package func withLock<T>(_ body: (inout Value) throws -> T) rethrows -> T {
        lock.lock()
        defer { lock.unlock() }
        return try body(&value)
    }
}
