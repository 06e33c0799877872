import Swidux

/// Whether a ``SwiduxDatabase`` was closed.
final class Lifecycle: Sendable {
    private let closed = LockedValue(false)

    var isClosed: Bool { closed.withLock { $0 } }

    /// Marks the database closed; `false` if it already was.
    func beginClose() -> Bool {
        closed.withLock { closed in
            if closed { return false }
            closed = true
            return true
        }
    }

    /// Closing failed: usable again.
    func reopen() { closed.withLock { $0 = false } }
}
