import Foundation
import Swidux

/// Sees every action the store reduces, with the state right after the reducer and the
/// app's middleware hooks (through ``RecordingMiddleware``, the store's last hook).
///
/// The action passed to ``TestStore/send(_:assert:fileID:filePath:line:column:)`` is the
/// first one reduced while `expectingSend` is set; everything else (effect output,
/// `.send` follow-ups) is queued as received.
///
/// The store uses it on the main actor; the test store's `deinit` reads it from wherever
/// the test store is released, hence the lock.
final class ActionRecorder<State, Action>: @unchecked Sendable {
    struct Step {
        let action: Action
        let state: State
    }

    /// Guards the fields below.
    private let lock = LockedValue(())
    private var _expectingSend = false
    private var _sent: Step?
    private var _received: [Step] = []
    private var _errors: [any Error] = []
    private var _origins: [UInt64: String] = [:]
    private var nextOrigin: UInt64 = 0

    /// Set while `TestStore.send` dispatches: the next reduced action is the sent one.
    var expectingSend: Bool {
        get { locked { _expectingSend } }
        set { locked { _expectingSend = newValue } }
    }

    /// Actions effects sent, not asserted yet, with the state after each.
    var received: [Step] {
        get { locked { _received } }
        set { locked { _received = newValue } }
    }

    /// Errors thrown by effects without a `catch` handler, reported at the next step.
    func takeErrors() -> [any Error] {
        locked {
            defer { _errors.removeAll() }
            return _errors
        }
    }

    func recordError(_ error: any Error) {
        locked { _errors.append(error) }
    }

    /// What started the effects still running (`send(…)` descriptions), oldest first.
    var origins: [String] {
        locked { _origins.sorted { $0.key < $1.key }.map(\.value) }
    }

    func addOrigin(_ origin: String) -> UInt64 {
        locked {
            nextOrigin += 1
            _origins[nextOrigin] = origin
            return nextOrigin
        }
    }

    func removeOrigin(_ id: UInt64) {
        locked { _ = _origins.removeValue(forKey: id) }
    }

    func record(_ action: Action, state: State) {
        locked {
            let step = Step(action: action, state: state)
            if _expectingSend {
                _expectingSend = false
                _sent = step
            } else {
                _received.append(step)
            }
        }
    }

    func takeSent() -> Step? {
        locked {
            defer { _sent = nil }
            return _sent
        }
    }

    /// Removes and returns the oldest received action.
    func popReceived() -> Step? {
        locked { _received.isEmpty ? nil : _received.removeFirst() }
    }

    /// Removes every received action; returns the last one.
    func removeAllReceived() -> Step? {
        locked {
            defer { _received.removeAll() }
            return _received.last
        }
    }

    private func locked<T, E: Error>(_ body: () throws(E) -> T) throws(E) -> T {
        try lock.withLock { (_: inout Void) throws(E) -> T in try body() }
    }
}

/// The test store's last middleware: records each reduced action with the state after the
/// reducer and every hook before it.
@MainActor
final class RecordingMiddleware<State, Action>: Middleware {
    let recorder: ActionRecorder<State, Action>
    init(_ recorder: ActionRecorder<State, Action>) { self.recorder = recorder }
    func afterReduce(state: inout State, action: Action) {
        recorder.record(action, state: state)
    }
}
