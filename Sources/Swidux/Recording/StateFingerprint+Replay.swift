/// Fingerprints a state step by step as a ``SessionRecorder`` does, on the calling thread:
/// for replays (SwiduxTesting's `TestStore(replaying:…)`, an app's replay viewer).
package final class StateFingerprinter<State> {
    private let fingerprint: StateFingerprint<State>
    private let trackers: [FingerprintCapture<State>]
    private let digests: [any FingerprintDigest]
    private let hashing = Fingerprinting()

    /// How many values were hashed so far (entities, ids, fields).
    var hashedValues: Int { hashing.hashedValues }

    package init(_ fingerprint: StateFingerprint<State>) {
        self.fingerprint = fingerprint
        trackers = fingerprint.makeCaptures()
        digests = fingerprint.makeDigests()
    }

    /// The part fingerprints of `state` (8 hex digits each, in part order), from what changed
    /// since the last call: O(changed).
    package func fingerprint(of state: State) throws -> [String] {
        for index in 0..<trackers.count {
            if let change = trackers[index](state) { try digests[index].apply(change, using: hashing) }
        }
        return digests.map { Fingerprinting.hex($0.value) }
    }
}

extension StateFingerprint {
    /// Applies the external changes of a recorded step (part name → change) to `state`.
    package func applyExternal(_ changes: [String: String], to state: inout State) throws {
        for part in parts {
            if let payload = changes[part.name] { try part.applyExternal(payload, to: &state) }
        }
    }
}

extension Store {
    /// Edits the root store's state as external changes are applied: not an action, not an
    /// undo step, not persisted; observers are notified. For replays of external changes.
    package func applyReplayedEdit(_ edit: (inout State) -> Void) {
        (box as? RootBox<State, Action>)?.editUnrecorded(edit)
    }

    /// How many undo and redo steps the root store's history holds, and how many steps it
    /// recorded so far (none without `undo:`).
    var historyDepth: (undo: Int, redo: Int, recorded: Int) {
        guard let history = (box as? RootBox<State, Action>)?.undoStack else { return (0, 0, 0) }
        return (history.undoCount, history.redoCount, history.recordedSteps)
    }
}
