import Foundation

/// Whether a ``SwiduxDatabase`` was closed.
final class Lifecycle: @unchecked Sendable {
    private let lock = NSLock()
    private var closed = false

    var isClosed: Bool { lock.withLock { closed } }

    /// Marks the database closed; `false` if it already was.
    func beginClose() -> Bool {
        lock.withLock {
            if closed { return false }
            closed = true
            return true
        }
    }

    /// Closing failed: usable again.
    func reopen() { lock.withLock { closed = false } }
}
