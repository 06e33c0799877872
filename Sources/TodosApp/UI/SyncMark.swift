import SwiduxSync

/// The lasting mark of the sync state on the status line while the UI syncs: a failure is
/// not only a status message that fades after a few seconds, it stays visible ("offline · 3
/// changes waiting", "token refused — sync stopped") until sync recovers ("synced").
///
/// ```swift
/// var mark = SyncMark()
/// mark.state = .connecting
/// _ = mark.apply(SyncMark.Change(event: .recovered, waiting: 0))   // mark.text == "synced"
/// ```
struct SyncMark {
    enum State: Equatable {
        /// The UI does not sync.
        case off
        /// Started, nothing answered yet.
        case connecting
        case synced
        /// The server cannot be reached; `waiting` local changes are not pushed yet.
        case offline(waiting: Int)
        /// The server refused the token (401): sync stopped until retried (`s`).
        case tokenRefused
    }

    /// A sync event (or, with `event` `nil`, a new count of waiting changes).
    struct Change: Sendable {
        var event: SyncEvent?
        var waiting: Int?
    }

    var state: State = .off

    var isOffline: Bool { if case .offline = state { true } else { false } }

    /// The mark's text, `nil` when sync is off.
    var text: String? {
        switch state {
        case .off: nil
        case .connecting: "syncing…"
        case .synced: "synced"
        case .offline(let waiting):
            waiting == 0 ? "offline · s: retry" : "offline · \(waiting) change\(waiting == 1 ? "" : "s") waiting · s: retry"
        case .tokenRefused: "token refused — sync stopped · s: retry"
        }
    }

    /// Applies `change`; returns the one-shot status message for a change of state (with
    /// the cause of a failure), or `nil`.
    mutating func apply(_ change: Change) -> String? {
        guard let event = change.event else {
            if case .offline = state, let waiting = change.waiting { state = .offline(waiting: waiting) }
            return nil
        }
        let before = state
        switch event {
        case .failed(let error, _):
            if case .unauthorized = error { return refused(error, before: before) }
            state = .offline(waiting: change.waiting ?? 0)
            return isOffline(before) ? nil : "sync: \(error) — working offline, retrying"
        case .stopped(let error):
            return refused(error, before: before)
        case .recovered, .synced:
            state = .synced
            return isOffline(before) || before == .tokenRefused ? "sync: connected again" : nil
        }
    }

    private mutating func refused(_ error: SyncError, before: State) -> String? {
        state = .tokenRefused
        return before == .tokenRefused ? nil : "sync: \(error) — sync stopped; check the token, then s retries"
    }

    private func isOffline(_ state: State) -> Bool { if case .offline = state { true } else { false } }
}
