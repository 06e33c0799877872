// The history an observing `Store` reads to learn which ids a dispatch changed.
//
// Every mutation that changes an `EntityStore` assigns it a new fingerprint; the log keeps,
// for each of these steps, the fingerprints before and after and the ids it touched (and
// whether membership or order changed). A store that saw the fingerprint `f` after the
// previous dispatch walks back from the newest step to the step that starts at `f`: the ids
// on the way are exactly what changed, in O(changed). A step that logged nothing (a bulk
// replacement: `removeAll()`, `merge` into an empty store) is "unknown", and a fingerprint not
// found in the log (a replaced or restored store, a trimmed log) too: the store then
// notifies every row observer of that slice — an extra notification, never a missed one.
// Consecutive mutations share a step: a reader marks the fingerprint it saw
// (`ChangeFingerprint.markSeen()`, which hands out a fingerprint), so a change whose
// fingerprint follows its predecessor's directly comes after no mark and extends the last
// step. A fingerprint inside a merged step is not found (the safe answer above); the marked
// ones always are.
// An `EntityIndex` reads the same log (it also needs to know whether a step reordered).
//
// It is separate from the persistence `ChangeSet`, which the `PersistenceMiddleware` drains
// after each reduce. It is bounded (older steps are dropped, amortized O(1)) and the
// observing store keeps only the last dispatch's steps, so that copies (undo snapshots) stay
// cheap.

@usableFromInline
struct EntityObservationLog<ID: Hashable & Sendable>: Sendable {
    /// One fingerprint step.
    @usableFromInline
    struct Step: Sendable {
        @usableFromInline var from: ChangeFingerprint
        @usableFromInline var to: ChangeFingerprint
        /// The end of this step's ids in `ids` (they start at the previous step's end).
        @usableFromInline var idEnd: Int
        @usableFromInline var membership: Bool
        /// `true` when the step reordered entities it did not log (sort, move, …).
        @usableFromInline var reorder: Bool
        /// `false` when the step logged nothing: anything may have changed.
        @usableFromInline var known: Bool

        @inlinable
        init(from: ChangeFingerprint, to: ChangeFingerprint, idEnd: Int, membership: Bool, reorder: Bool, known: Bool) {
            self.from = from
            self.to = to
            self.idEnd = idEnd
            self.membership = membership
            self.reorder = reorder
            self.known = known
        }
    }

    @usableFromInline var steps: [Step] = []
    @usableFromInline var ids: [ID] = []
    @usableFromInline var pendingMembership = false
    @usableFromInline var pendingReorder = false
    @usableFromInline var pendingKnown = false

    // Small: undo snapshots copy the log of every entity store they hold.
    @usableFromInline static var maxSteps: Int { 32 }
    @usableFromInline static var maxIDs: Int { 128 }

    @inlinable
    init() {}

    /// Logs that the coming step changes `id` (and membership or order, if `membership`).
    @inlinable
    mutating func record(_ id: ID, membership: Bool = false) {
        ids.append(id)
        pendingKnown = true
        if membership { pendingMembership = true }
    }

    /// Logs that the coming step reorders entities (without logging their ids).
    @inlinable
    mutating func recordMembership() {
        pendingKnown = true
        pendingMembership = true
        pendingReorder = true
    }

    /// Closes a step: the store's fingerprint went from `old` to `new`.
    ///
    /// The step extends the previous one when no fingerprint was handed out between `old`
    /// and `new` and the previous step ends at `old`: then no reader can have seen `old`
    /// (a reader marks what it saw with `ChangeFingerprint.markSeen()`, which hands one
    /// out), and a reducer's loop of mutations costs one step instead of one per mutation.
    @inlinable
    mutating func didChange(from old: ChangeFingerprint, to new: ChangeFingerprint) {
        let last = steps.count - 1
        if last >= 0, new.raw == old.raw &+ 1, steps[last].to == old {
            steps[last].to = new
            steps[last].idEnd = ids.count
            if pendingMembership { steps[last].membership = true }
            if pendingReorder { steps[last].reorder = true }
            if !pendingKnown { steps[last].known = false }
        } else {
            steps.append(Step(
                from: old, to: new, idEnd: ids.count, membership: pendingMembership, reorder: pendingReorder,
                known: pendingKnown))
        }
        pendingMembership = false
        pendingReorder = false
        pendingKnown = false
        if steps.count > Self.maxSteps || ids.count > Self.maxIDs { trim() }
    }

    /// Drops the older half of the steps (all of them when one step holds too many ids).
    /// Inlinable: it runs every few mutations, and unspecialized it costs generic lookups.
    @inlinable
    mutating func trim() {
        var drop = steps.count / 2
        while drop < steps.count, ids.count - (drop == 0 ? 0 : steps[drop - 1].idEnd) > Self.maxIDs / 2 { drop += 1 }
        if drop >= steps.count {
            // Keeping the buffers: a loop of mutations in one step lands here every
            // `maxIDs` ids.
            steps.removeAll(keepingCapacity: true)
            ids.removeAll(keepingCapacity: true)
            return
        }
        let idStart = drop == 0 ? 0 : steps[drop - 1].idEnd
        steps.removeFirst(drop)
        ids.removeFirst(idStart)
        for index in steps.indices { steps[index].idEnd -= idStart }
    }

    /// What changed between the fingerprints `seen` and `current`, or `nil` when the log
    /// cannot tell (then anything may have changed). `reorder`: some step reordered
    /// entities it did not log.
    ///
    /// - Complexity: O(steps and ids since `seen`).
    @inlinable
    func changes(since seen: ChangeFingerprint, current: ChangeFingerprint)
        -> (ids: ArraySlice<ID>, membership: Bool, reorder: Bool)? {
        guard let last = steps.last, last.to == current else { return nil }
        var membership = false, reorder = false
        var index = steps.count - 1
        while index >= 0 {
            let step = steps[index]
            guard step.known else { return nil }
            if step.membership { membership = true }
            if step.reorder { reorder = true }
            if step.from == seen {
                let start = index == 0 ? 0 : steps[index - 1].idEnd
                return (ids[start..<last.idEnd], membership, reorder)
            }
            index -= 1
        }
        return nil
    }
}

extension EntityStore {
    /// The observation log of this value (see `EntityObservationLog`).
    @usableFromInline
    var _observationChanges: EntityObservationLog<ID> { _observationLog }

    /// Forgets the steps before the one that starts at `seen` (all of them if none does);
    /// the observing store calls it after reading the log. The steps of the last dispatch
    /// stay, for an `EntityIndex` read after it (e.g. by the view).
    mutating func _trimObservationLog(keepingSince seen: ChangeFingerprint) {
        guard let first = _observationLog.steps.first, first.from != seen else { return }
        guard let start = _observationLog.steps.lastIndex(where: { $0.from == seen }) else {
            _observationLog = EntityObservationLog()
            return
        }
        let idStart = _observationLog.steps[start - 1].idEnd
        var log = EntityObservationLog<ID>()
        log.steps = Array(_observationLog.steps[start...])
        log.ids = Array(_observationLog.ids[idStart...])
        for index in log.steps.indices { log.steps[index].idEnd -= idStart }
        _observationLog = log
    }
}
