import Observation

/// What the tracker needs of an entity slice, whatever its entity type.
@MainActor
protocol TrackedEntitySliceProtocol<State>: AnyObject {
    associatedtype State
    func collect(_ state: inout State, into fired: inout [ObservationTracker<State>.Key])
    var trackedEntryCount: Int { get }
}

/// Receives the reads made through an ``ObservedEntities`` view.
@MainActor
class EntityReadObserver<Entity: Identifiable & Equatable & Sendable> where Entity.ID: Sendable {
    /// A read of the entity with `id` (present or not).
    func row(_ id: Entity.ID) {}
    /// A read of membership and order (ids, count, emptiness, presence).
    func membership() {}
    /// A read of the whole slice.
    func whole() {}
}

/// The row and membership entries of one entity store slice of the state.
final class TrackedEntitySlice<State, Entity: Identifiable & Equatable & Sendable>: EntityReadObserver<Entity>, TrackedEntitySliceProtocol
where Entity.ID: Sendable {
    typealias Key = ObservationTracker<State>.Key

    private weak var tracker: ObservationTracker<State>?
    let path: KeyPath<State, EntityStore<Entity>>
    /// Where the log is trimmed to the last dispatch (`nil` for a read-only path: the log
    /// is then only trimmed by its own bound).
    private let writable: WritableKeyPath<State, EntityStore<Entity>>?
    /// The fingerprint after the last dispatch.
    private var seen: ChangeFingerprint
    private var rows: [Entity.ID: Key] = [:]
    private var membershipKey: Key?

    init(tracker: ObservationTracker<State>, path: KeyPath<State, EntityStore<Entity>>, seen: ChangeFingerprint) {
        self.tracker = tracker
        self.path = path
        self.writable = path as? WritableKeyPath<State, EntityStore<Entity>>
        self.seen = seen
        ChangeFingerprint.markSeen()
    }

    override func row(_ id: Entity.ID) {
        guard let tracker else { return }
        let key: Key
        if let armed = rows[id] {
            key = armed
        } else {
            key = tracker.makeKey()
            rows[id] = key
        }
        tracker.entryRegistrar.access(tracker.sliceKeys, keyPath: key)
        ObservedRun.noteRead(tracker, key)
    }

    override func membership() {
        guard let tracker else { return }
        let key: Key
        if let armed = membershipKey {
            key = armed
        } else {
            key = tracker.makeKey()
            membershipKey = key
        }
        tracker.entryRegistrar.access(tracker.sliceKeys, keyPath: key)
        ObservedRun.noteRead(tracker, key)
    }

    override func whole() {
        guard let tracker, let state = tracker.currentState() else { return }
        tracker.track(path, in: state)
    }

    func collect(_ state: inout State, into fired: inout [Key]) {
        let now = state[keyPath: path].changeFingerprint
        guard now != seen else { return }
        if !rows.isEmpty || membershipKey != nil {
            if let changes = state[keyPath: path]._observationChanges.changes(since: seen, current: now) {
                if changes.membership, let key = membershipKey {
                    fired.append(key)
                    membershipKey = nil
                }
                if !rows.isEmpty {
                    for id in changes.ids {
                        if let key = rows.removeValue(forKey: id) { fired.append(key) }
                    }
                }
            } else {
                // The log cannot tell (a replaced or restored store, a bulk change): notify
                // every reader of this slice rather than miss one.
                if let key = membershipKey { fired.append(key) }
                membershipKey = nil
                fired.append(contentsOf: rows.values)
                rows.removeAll()
            }
        }
        if let writable { state[keyPath: writable]._trimObservationLog(keepingSince: seen) }
        seen = now
        ChangeFingerprint.markSeen()
    }

    var trackedEntryCount: Int { rows.count + (membershipKey == nil ? 0 : 1) }
}
