import Foundation
import GRDB
import Swidux

/// Wakes the tasks that wait for commits to one database file: this process's commits
/// (every ``SwiduxDatabase`` opened on the file signals its own through a GRDB transaction
/// observer) and, on Linux, other processes' (an inotify watch on the file's `-wal` and
/// main file, see `FileChangeWatch`). One per file path, shared in the process.
///
/// A waiter is woken by every commit made since its previous wait (a generation counter:
/// nothing is missed between two waits), or after its timeout — the slow poll that catches
/// commits no notification reports.
final class CommitSignal: Sendable {
    private let wakeSignal = WakeSignal()
    private let watch = LockedValue<FileChangeWatch?>(nil)
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
    var current: UInt64 { wakeSignal.generation }

    /// Something committed: wakes every waiter.
    func signal() { wakeSignal.wake() }

    /// Returns when the generation moved past `seen`, after `timeout`, or when the task is
    /// cancelled — whichever comes first.
    func wait(after seen: UInt64, timeout: Duration) async {
        watchIfNeeded()
        await wakeSignal.wait(after: seen, timeout: timeout)
    }

    /// Watches the file for other processes' commits (where the platform can), from the
    /// first wait on, for as long as the signal lives.
    private func watchIfNeeded() {
        watch.withLock { watch in
            if watch == nil { watch = FileChangeWatch(path: path) { [weak self] in self?.signal() } }
        }
    }

    deinit { watch.withLock { $0 }?.cancel() }
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
