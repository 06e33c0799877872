import Foundation
import GRDB

/// Wakes the tasks that wait for commits to one database file: this process's commits
/// (every ``SwiduxDatabase`` opened on the file signals its own through a GRDB transaction
/// observer) and, on Linux, other processes' (an inotify watch on the file's `-wal` and
/// main file, see `FileChangeWatch`). One per file path, shared in the process.
///
/// A waiter is woken by every commit made since its previous wait (a generation counter:
/// nothing is missed between two waits), or after its timeout — the slow poll that catches
/// commits no notification reports.
final class CommitSignal: @unchecked Sendable {
    private let lock = NSLock()
    private var generation: UInt64 = 0
    private var waiters: [UInt64: CheckedContinuation<Void, Never>] = [:]
    private var nextWaiter: UInt64 = 0
    private var watch: FileChangeWatch?
    let path: String

    private init(path: String) { self.path = path }

    /// The signal of the file at `path` (one per path in the process).
    static func forFile(_ path: String) -> CommitSignal {
        let key = URL(fileURLWithPath: path).standardizedFileURL.path
        return registry.withLock { signals in
            if let signal = signals[key]?.value { return signal }
            let signal = CommitSignal(path: key)
            signals[key] = WeakSignal(value: signal)
            return signal
        }
    }

    private static let registry = LockedValue<[String: WeakSignal]>([:])

    /// The current generation: pass it to ``wait(after:timeout:)``.
    var current: UInt64 { lock.withLock { generation } }

    /// Something committed: wakes every waiter.
    func signal() {
        let woken = lock.withLock { () -> [CheckedContinuation<Void, Never>] in
            generation &+= 1
            defer { waiters.removeAll() }
            return Array(waiters.values)
        }
        for waiter in woken { waiter.resume() }
    }

    /// Returns when the generation moved past `seen`, after `timeout`, or when the task is
    /// cancelled — whichever comes first.
    func wait(after seen: UInt64, timeout: Duration) async {
        watchIfNeeded()
        let id = lock.withLock { () -> UInt64 in
            nextWaiter &+= 1
            return nextWaiter
        }
        await withTaskGroup(of: Void.self) { group in
            group.addTask {
                await withTaskCancellationHandler {
                    await withCheckedContinuation { continuation in
                        let resumeNow = self.lock.withLock { () -> Bool in
                            if self.generation != seen || Task.isCancelled { return true }
                            self.waiters[id] = continuation
                            return false
                        }
                        if resumeNow { continuation.resume() }
                    }
                } onCancel: {
                    self.resume(id)
                }
            }
            group.addTask {
                try? await Task.sleep(for: timeout)
                self.resume(id)
            }
            await group.next()
            group.cancelAll()
        }
    }

    private func resume(_ id: UInt64) {
        let waiter = lock.withLock { waiters.removeValue(forKey: id) }
        waiter?.resume()
    }

    /// Watches the file for other processes' commits (where the platform can), from the
    /// first wait on, for as long as the signal lives.
    private func watchIfNeeded() {
        lock.withLock {
            if watch == nil { watch = FileChangeWatch(path: path) { [weak self] in self?.signal() } }
        }
    }

    deinit { watch?.cancel() }
}

private struct WeakSignal {
    weak var value: CommitSignal?
}

/// Signals a ``CommitSignal`` after every commit of the connection it observes (it
/// observes no statement: no per-row cost).
final class CommitObserver: TransactionObserver {
    let signal: CommitSignal
    init(signal: CommitSignal) { self.signal = signal }
    func observes(eventsOfKind eventKind: DatabaseEventKind) -> Bool { false }
    func databaseDidChange(with event: DatabaseEvent) {}
    func databaseDidCommit(_ db: Database) { signal.signal() }
    func databaseDidRollback(_ db: Database) {}
}
